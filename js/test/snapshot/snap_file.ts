// js/test/snapshot/snap_file.ts — The text of a `__snapshots__/<file>.snap` file, in bun's
// format: a header line, then one `exports[`name N`] = `value`;` entry per snapshot, each
// after a blank line. Reads the entries out of a file (bun's, jest's, or one awf wrote) and
// writes entries the way bun does, escaping what a template literal needs.

export const HEADER = "// Bun Snapshot v1, https://bun.sh/docs/test/snapshots\n";

export interface SnapEntry {
  readonly name: string;
  readonly value: string;
}

/** Why a `.snap` file does not read as one; `line` is 1-based. */
export class SnapFileError extends Error {
  readonly line: number;
  constructor(message: string, line: number) {
    super(message);
    this.line = line;
  }
}

/** One entry as bun appends it to the file's text. */
export function entryText(name: string, value: string): string {
  return `\nexports[\`${escapeTemplate(name)}\`] = \`${escapeTemplate(value)}\`;\n`;
}

/**
 * What a template literal needs escaped, as bun's printer escapes it: backquotes, backslashes
 * and `${`; control characters other than tab and line feed; U+2028 and U+2029. A lone
 * surrogate becomes U+FFFD, since the file is UTF-8.
 */
export function escapeTemplate(text: string): string {
  let out = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    const code = char.charCodeAt(0);
    if (char === "`" || char === "\\") out += `\\${char}`;
    else if (char === "$" && text[index + 1] === "{") out += "\\$";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (char === "\v") out += "\\v";
    else if (char === "\r") out += "\\r";
    else if (code < 0x20 && char !== "\t" && char !== "\n") out += `\\x${code.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16)}`;
    else if (code >= 0xd800 && code <= 0xdbff && isLow(text.charCodeAt(index + 1))) {
      out += text.slice(index, index + 2);
      index++;
    } else if (code >= 0xd800 && code <= 0xdfff) out += "\ufffd";
    else out += char;
  }
  return out;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The entries of a `.snap` file's text, in file order; anything between them is ignored, as a JS file's other statements. */
export function parseSnapFile(text: string): SnapEntry[] {
  const entries: SnapEntry[] = [];
  const start = /exports\[\s*`/g;
  let match: RegExpExecArray | null;
  while ((match = start.exec(text)) !== null) {
    const name = readTemplate(text, match.index + match[0].length);
    const assign = /^\s*\]\s*=\s*`/.exec(text.slice(name.end));
    if (!assign) throw new SnapFileError("expected ] = ` after the snapshot's name", lineAt(text, name.end));
    const value = readTemplate(text, name.end + assign[0].length);
    entries.push({ name: name.text, value: value.text });
    start.lastIndex = value.end;
  }
  return entries;
}

/** A template literal's text from `from` (just after its opening backquote) to its closing one, unescaped. */
function readTemplate(text: string, from: number): { text: string; end: number } {
  let out = "";
  for (let index = from; index < text.length; index++) {
    const char = text[index]!;
    if (char === "`") return { text: out, end: index + 1 };
    if (char === "$" && text[index + 1] === "{") throw new SnapFileError("a snapshot cannot hold a ${...} substitution", lineAt(text, index));
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = text[++index];
    if (next === undefined) break;
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", "0": "\0", "\n": "" };
    if (next in simple) out += simple[next];
    else if (next === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(index + 1, index + 3))) {
      out += String.fromCharCode(parseInt(text.slice(index + 1, index + 3), 16));
      index += 2;
    } else if (next === "u" && text[index + 1] === "{") {
      const close = text.indexOf("}", index);
      out += String.fromCodePoint(parseInt(text.slice(index + 2, close), 16));
      index = close;
    } else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(index + 1, index + 5))) {
      out += String.fromCharCode(parseInt(text.slice(index + 1, index + 5), 16));
      index += 4;
    } else out += next;
  }
  throw new SnapFileError("a snapshot's template literal is not closed", lineAt(text, from));
}

function lineAt(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}
