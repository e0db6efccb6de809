// Reads one JSON string per line on stdin; writes one JSON line per input:
// {"tree": [[depth, type, start, name?, attributes?], …]} (starts in UTF-16
// units) or {"error": {"point": …, "offset": …, "reason": …}}.
import {createInterface} from 'node:readline'
import {fromMarkdown} from 'mdast-util-from-markdown'
import {gfmTable} from 'micromark-extension-gfm-table'
import {gfmTableFromMarkdown} from 'mdast-util-gfm-table'
import {gfmStrikethrough} from 'micromark-extension-gfm-strikethrough'
import {gfmStrikethroughFromMarkdown} from 'mdast-util-gfm-strikethrough'
import {gfmTaskListItem} from 'micromark-extension-gfm-task-list-item'
import {gfmTaskListItemFromMarkdown} from 'mdast-util-gfm-task-list-item'
import {gfmFootnote} from 'micromark-extension-gfm-footnote'
import {gfmFootnoteFromMarkdown} from 'mdast-util-gfm-footnote'
import {math} from 'micromark-extension-math'
import {mathFromMarkdown} from 'mdast-util-math'
import {mdxJsx} from 'micromark-extension-mdx-jsx'
import {mdxJsxFromMarkdown} from 'mdast-util-mdx-jsx'
import {mdxMd} from 'micromark-extension-mdx-md'

const options = {
  extensions: [gfmTable(), gfmStrikethrough({singleTilde: false}), gfmTaskListItem(), gfmFootnote(), math(), mdxJsx(), mdxMd()],
  mdastExtensions: [gfmTableFromMarkdown(), gfmStrikethroughFromMarkdown(), gfmTaskListItemFromMarkdown(), gfmFootnoteFromMarkdown(), mathFromMarkdown(), mdxJsxFromMarkdown()]
}

// The tree flattened in document order, so that deep trees stay shallow
// JSON: one entry per node, [depth, type, start, name, attributes] (name and
// attributes only for JSX elements; an attribute is [name, value], with
// {e: source} for an expression and a null name for an expression attribute).
function flatten(root) {
  const out = []
  const stack = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()
    const entry = [depth, node.type, node.position ? node.position.start.offset : 0]
    if (node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') {
      entry.push(node.name || '', node.attributes.map(a => a.type === 'mdxJsxAttribute'
        ? [a.name, a.value === null || a.value === undefined ? null : typeof a.value === 'string' ? a.value : {e: a.value.value}]
        : [null, {e: a.value}]))
    }
    out.push(entry)
    const children = node.children || []
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i], depth + 1])
  }
  return out
}

const rl = createInterface({input: process.stdin, crlfDelay: Infinity})
for await (const line of rl) {
  if (!line) continue
  const doc = JSON.parse(line)
  let result
  try {
    result = {tree: flatten(fromMarkdown(doc, options))}
  } catch (error) {
    // A tokenizer error has a point; a tree-construction error the position
    // of the construct that ends too early (or none).
    const place = error.place
    const point = Boolean(place && !place.start)
    const offset = place ? (place.start ? place.start.offset : place.offset) : undefined
    result = {error: {point, offset: offset === undefined ? null : offset, reason: String(error.reason || error.message)}}
  }
  // A reason may quote half of a surrogate pair: keep the JSON well formed.
  const wellFormed = (key, value) => typeof value === 'string' ? value.toWellFormed() : value
  process.stdout.write(JSON.stringify(result, wellFormed) + '\n')
}
