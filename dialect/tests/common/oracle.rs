//! markdown-rs as a test oracle: options matching the dialect, and a shape
//! rendering identical to `Tree::shape`.

use markdown::mdast::{AttributeContent, AttributeValue, Node};
use markdown::{Constructs, ParseOptions};

pub fn options() -> ParseOptions {
    ParseOptions {
        constructs: Constructs {
            gfm_table: true,
            gfm_strikethrough: true,
            gfm_task_list_item: true,
            gfm_footnote_definition: true,
            gfm_label_start_footnote: true,
            math_flow: true,
            math_text: true,
            mdx_esm: false,
            mdx_expression_flow: false,
            mdx_expression_text: false,
            gfm_autolink_literal: false,
            frontmatter: false,
            ..Constructs::mdx()
        },
        gfm_strikethrough_single_tilde: false,
        math_text_single_dollar: true,
        ..ParseOptions::default()
    }
}

fn type_name(node: &Node) -> &'static str {
    match node {
        Node::Root(_) => "root",
        Node::Paragraph(_) => "paragraph",
        Node::Heading(_) => "heading",
        Node::ThematicBreak(_) => "thematicBreak",
        Node::Blockquote(_) => "blockquote",
        Node::List(_) => "list",
        Node::ListItem(_) => "listItem",
        Node::Code(_) => "code",
        Node::Math(_) => "math",
        Node::Table(_) => "table",
        Node::TableRow(_) => "tableRow",
        Node::TableCell(_) => "tableCell",
        Node::Text(_) => "text",
        Node::Strong(_) => "strong",
        Node::Emphasis(_) => "emphasis",
        Node::Delete(_) => "delete",
        Node::InlineCode(_) => "inlineCode",
        Node::Break(_) => "break",
        Node::Link(_) => "link",
        Node::Image(_) => "image",
        Node::InlineMath(_) => "inlineMath",
        Node::LinkReference(_) => "linkReference",
        Node::ImageReference(_) => "imageReference",
        Node::Definition(_) => "definition",
        Node::FootnoteReference(_) => "footnoteReference",
        Node::FootnoteDefinition(_) => "footnoteDefinition",
        Node::MdxJsxFlowElement(_) => "mdxJsxFlowElement",
        Node::MdxJsxTextElement(_) => "mdxJsxTextElement",
        Node::Html(_) => "html",
        Node::MdxjsEsm(_) => "mdxjsEsm",
        Node::MdxFlowExpression(_) => "mdxFlowExpression",
        Node::MdxTextExpression(_) => "mdxTextExpression",
        Node::Yaml(_) => "yaml",
        Node::Toml(_) => "toml",
    }
}

/// The oracle's tree in `Tree::shape(true)`'s format, or its failure offset;
/// `None` when markdown-rs itself panics (it has assertion bugs on some
/// malformed label inputs), so the input cannot be compared.
pub fn shape(plan: &str) -> Option<Result<String, Option<usize>>> {
    // One process-wide hook that stays quiet only for oracle panics on this
    // thread, so failures of concurrently running tests still print.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_ORACLE.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    IN_ORACLE.with(|c| c.set(true));
    let result = std::panic::catch_unwind(|| shape_inner(plan));
    IN_ORACLE.with(|c| c.set(false));
    result.ok()
}

thread_local! {
    static IN_ORACLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn shape_inner(plan: &str) -> Result<String, Option<usize>> {
    let root = markdown::to_mdast(plan, &options()).map_err(|m| match m.place.as_deref() {
        Some(markdown::message::Place::Point(p)) => Some(p.offset),
        Some(markdown::message::Place::Position(p)) => Some(p.start.offset),
        None => None,
    })?;
    let mut out = String::new();
    let mut stack = vec![(&root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(type_name(node));
        let jsx = match node {
            Node::MdxJsxFlowElement(e) => Some((&e.name, &e.attributes)),
            Node::MdxJsxTextElement(e) => Some((&e.name, &e.attributes)),
            _ => None,
        };
        if let Some((name, attrs)) = jsx {
            out.push_str(&format!(" <{}>", name.as_deref().unwrap_or("")));
            for a in attrs {
                match a {
                    AttributeContent::Expression(e) => out.push_str(&format!(" {{{:?}}}", e.value)),
                    AttributeContent::Property(p) => match &p.value {
                        Some(AttributeValue::Literal(v)) => {
                            out.push_str(&format!(" {}={v:?}", p.name))
                        }
                        Some(AttributeValue::Expression(e)) => {
                            out.push_str(&format!(" {}={{{:?}}}", p.name, e.value))
                        }
                        None => out.push_str(&format!(" {}", p.name)),
                    },
                }
            }
        }
        let start = node.position().map_or(0, |p| p.start.offset);
        out.push_str(&format!(" @{start}\n"));
        if let Some(children) = node.children() {
            for child in children.iter().rev() {
                stack.push((child, depth + 1));
            }
        }
    }
    Ok(out)
}
