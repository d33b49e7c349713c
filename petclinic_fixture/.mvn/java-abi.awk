# The part of a Java source that other sources compile against: what ./mvnw compares to tell an
# edit inside method bodies (the other classes stay valid) from one to a signature (they must
# compile again).
#
#   awk -v out=DIR -v sums=CKSUMS -f .mvn/java-abi.awk FILE...
#
# writes, for each FILE (src/main/java/... or src/test/java/...), DIR/FILE with every "/" made
# "%": a first line with the checksum of its class file as CKSUMS has it (cksum's output for
# target/classes/....class or target/test-classes/....class; "none" when it has no line), then
# the source without comments, with
# whitespace outside literals folded to one space, with each method, constructor and
# initializer body emptied to "{}", and with only the imports the rest still names. Field
# initializers stay whole (a constant's value is compiled into its users), and so do nested
# types, annotations and the bodies of enum constants. Wherever the shape is unclear the text
# is kept: an extra full compile costs seconds, a missed one wrong sensors. POSIX awk (mawk,
# gawk, macOS awk).
#
#   awk -v code_only=1 -f .mvn/java-abi.awk FILE...
#
# prints the files' lines without their comments instead (literals kept as they are): what
# ./mvnw searches for the names a changed file declares.

function emit(text) {
    if (code_only) {
        code_line = code_line text
        return
    }
    if (mode[depth] == "strip")
        return
    if (text == " " && state != "text") {
        if (pending_space || abi == "" || substr(abi, length(abi), 1) == " ")
            return
        pending_space = 1
        return
    }
    if (pending_space) {
        abi = abi " "
        if (mode[depth] == "type")
            header = header " "
        pending_space = 0
    }
    abi = abi text
    if (mode[depth] == "type")
        header = header text
}

function reset_header() {
    header = ""; parens = 0; assigns = 0
}

function open_brace(    kind, h) {
    kind = "keep"
    if (mode[depth] == "strip") {
        kind = "strip"
    } else if (mode[depth] == "type" && parens == 0) {
        h = " " header " "
        gsub(/[^A-Za-z0-9_$@.]+/, " ", h)
        if (assigns) {
            kind = "keep"  # an initializer: an array, a lambda, an anonymous class
        } else if (h ~ / (class|interface|enum|record|@interface) /) {
            kind = "type"
        } else if (header ~ /\(/ || h ~ /^ *(static *)?$/) {
            kind = "strip"  # a method or constructor body, an initializer block
        }
    }
    emit("{")
    depth++
    mode[depth] = kind
    opened_by[depth] = (kind == "keep" && assigns) ? "initializer" : kind
    if (kind == "type" || kind == "strip")
        reset_header()
}

function close_brace(    was) {
    if (depth == 0) {
        emit("}")  # unbalanced: keep it, the text then differs from any well-formed one
        return
    }
    was = opened_by[depth]
    depth--
    emit("}")
    if (was != "initializer" && mode[depth] == "type")
        reset_header()
}

function statement_end() {
    if (depth == 0 && mode[0] == "type") {
        statement = substr(abi, statement_start + 1)
        if (statement ~ /^ *import /) {
            imports[++import_count] = statement
            abi = substr(abi, 1, statement_start)
        }
        statement_start = length(abi)
    }
    if (mode[depth] == "type")
        reset_header()
}

BEGIN {
    while (sums != "" && (getline entry < sums) > 0) {
        class = entry
        sub(/^[0-9]+ [0-9]+ /, "", class)
        sum[class] = substr(entry, 1, length(entry) - length(class) - 1)
    }
}

function finish(    target, i, name, words, count, kept, class) {
    if (file == "" || code_only)
        return
    # The imports the rest names: one nobody names cannot change what a name means.
    count = split(abi, words, /[^A-Za-z0-9_$]+/)
    split("", named)
    for (i = 1; i <= count; i++)
        named[words[i]] = 1
    kept = ""
    for (i = 1; i <= import_count; i++) {
        name = imports[i]
        sub(/[ ;]+$/, "", name)
        sub(/.*[. ]/, "", name)
        if (name == "*" || (name in named))
            kept = kept imports[i] "\n"
    }
    class = file
    sub(/^src\/main\/java\//, "target/classes/", class)
    sub(/^src\/test\/java\//, "target/test-classes/", class)
    sub(/\.java$/, ".class", class)
    target = file
    gsub(/\//, "%", target)
    target = out "/" target
    printf "class %s\n%s%s\n", ((class in sum) ? sum[class] : "none"), kept, abi > target
    close(target)
}

function start(name) {
    finish()
    file = name
    abi = ""; pending_space = 0; state = ""
    depth = 0; mode[0] = "type"; opened_by[0] = "type"
    statement_start = 0; import_count = 0
    reset_header()
}

FNR == 1 { start(FILENAME) }

{
    line = $0; i = 1; n = length(line)
    while (i <= n) {
        c = substr(line, i, 1); two = substr(line, i, 2); three = substr(line, i, 3)
        if (state == "block") {
            if (two == "*/") { state = ""; i += 2 } else i++
            continue
        }
        if (state == "text") {  # a text block: kept exactly
            if (c == "\\") { emit(two); i += 2 }
            else if (three == "\"\"\"") { state = ""; emit(three); i += 3 }
            else { emit(c); i++ }
            continue
        }
        if (three == "\"\"\"") {
            state = "text"; emit(three); i += 3
        } else if (c == "\"" || c == "\047") {
            literal = c; quote = c; i++
            while (i <= n) {
                c = substr(line, i, 1); literal = literal c; i++
                if (c == "\\") { literal = literal substr(line, i, 1); i++ }
                else if (c == quote) break
            }
            emit(literal)
        } else if (two == "//") {
            break
        } else if (two == "/*") {
            state = "block"; i += 2
            emit(" ")
        } else if (c == " " || c == "\t" || c == "\r" || c == "\f") {
            emit(" "); i++
        } else {
            if (c == "{") open_brace()
            else if (c == "}") close_brace()
            else {
                if (mode[depth] == "type") {
                    if (c == "(") parens++
                    else if (c == ")") parens--
                    else if (c == "=" && parens == 0) assigns = 1
                }
                emit(c)
                if (c == ";" && parens == 0) statement_end()
            }
            i++
        }
    }
    if (code_only) {
        print code_line
        code_line = ""
    } else if (state == "text") emit("\n")
    else emit(" ")
}

END { finish() }
