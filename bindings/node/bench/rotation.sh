# The handler modules peer.sh and loopback.sh take turns over, sourced by
# both. After `rotation_modules DIR PACKAGE`, $names lists the handlers
# (plain, package, then each of EXTRA="name=/path/to/index.mjs ...") and
# `module_of NAME` is the module the peer's code loads for one (MCP_TS).

# Writes DIR/package.ts (re-exporting PACKAGE/index.mjs) and a module for
# each EXTRA build; sets $names.
rotation_modules() {
    local dir=$1 package=$2 pair name path
    printf '// This package, as the peer bench loads a handler module.\nexport * from "%s/index.mjs";\n' "$package" >"$dir/package.ts"
    names="plain package"
    for pair in ${EXTRA:-}; do
        name=${pair%%=*}
        path=${pair#*=}
        [ -f "$path" ] || { echo "EXTRA: no $path" >&2; exit 1; }
        printf 'export * from "%s/%s";\n' "$(cd "$(dirname "$path")" && pwd)" "$(basename "$path")" >"$dir/extra-$name.ts"
        names="$names $name"
    done
}

# The module of handler NAME in DIR.
module_of() {
    case $2 in
        plain) echo "$1/mcp.ts" ;;
        package) echo "$1/package.ts" ;;
        *) echo "$1/extra-$2.ts" ;;
    esac
}

median() { printf '%s\n' $1 | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
