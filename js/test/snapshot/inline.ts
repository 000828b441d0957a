// js/test/snapshot/inline.ts — Inline snapshots in the test file's own text, as bun and jest
// write them: `toMatchInlineSnapshot()` gets its value as a template literal argument, one line
// as `` `"text"` ``, several lines indented two spaces past the line of the matcher's name, the
// closing backquote at that line's indentation. Comparing strips that added indentation (jest's
// rule); writing finds the call from where the matcher was called and the source text, and
// replaces or inserts the snapshot argument.

import { escapeTemplate } from "./snap_file.ts";

/** Where a matcher was called in the test file: 1-based line and column, as stack frames give them. */
export interface CallSite {
  readonly line: number;
  readonly column: number;
}

/** One inline snapshot to write: the call, the matcher's name, whether it has property matchers, and the printed value. */
export interface InlineWrite {
  readonly site: CallSite;
  readonly matcher: string;
  readonly hasProperties: boolean;
  readonly printed: string;
}

/** Why an inline snapshot cannot be written where its matcher is. */
export class InlineSourceError extends Error {}

/**
 * jest's stripAddedIndentation: a snapshot whose first and last lines are blank loses the
 * indentation of its first non-blank line from every line (all must have it), and its last
 * line's; any other snapshot is compared as it is.
 */
export function stripAddedIndentation(snapshot: string): string {
  const indentation = /^([^\S\n]*)\S/m.exec(snapshot)?.[1];
  if (!indentation) return snapshot;
  const lines = snapshot.split("\n");
  if (lines.length <= 2 || lines[0]!.trim() !== "" || lines.at(-1)!.trim() !== "") return snapshot;
  for (let index = 1; index < lines.length - 1; index++) {
    const line = lines[index]!;
    if (line === "") continue;
    if (!line.startsWith(indentation)) return snapshot;
    lines[index] = line.slice(indentation.length);
  }
  lines[lines.length - 1] = "";
  return lines.join("\n");
}

/** The test file's text with each inline snapshot written at its call. */
export function writeInlineSnapshots(source: string, writes: readonly InlineWrite[]): string {
  const edits = writes.map((write) => editFor(source, write));
  edits.sort((a, b) => b.start - a.start);
  let out = source;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

function editFor(source: string, write: InlineWrite): Edit {
  const name = findMatcherName(source, write);
  const lineStart = source.lastIndexOf("\n", name - 1) + 1;
  const indentation = /^[ \t]*/.exec(source.slice(lineStart))![0];
  const literal = templateLiteral(write.printed, indentation);
  const open = skipSpace(source, name + write.matcher.length);
  if (source[open] !== "(") throw new InlineSourceError(`expected ( after ${write.matcher}`);
  const args = argumentsOf(source, open);
  const snapshotIndex = write.hasProperties ? 1 : 0;
  const existing = args.list[snapshotIndex];
  if (existing) return { start: existing.start, end: existing.end, text: literal };
  const last = args.list.at(-1);
  if (last) return { start: last.end, end: last.end, text: `, ${literal}` };
  return { start: args.close, end: args.close, text: literal };
}

/** The template literal bun writes for a printed value. */
function templateLiteral(printed: string, indentation: string): string {
  const escaped = escapeTemplate(printed);
  if (!escaped.includes("\n")) return `\`${escaped}\``;
  const lines = escaped.split("\n");
  const body = lines.map((line, index) => (index === 0 || index === lines.length - 1 || line === "" ? line : `${indentation}  ${line}`));
  body[body.length - 1] = indentation;
  return `\`${body.join("\n")}\``;
}

/** The offset of the matcher's name for the call at `site`: on the site's line the one nearest its column, else the next one after it. */
function findMatcherName(source: string, write: InlineWrite): number {
  const lines = source.split("\n");
  if (write.site.line < 1 || write.site.line > lines.length) throw new InlineSourceError(`line ${write.site.line} is past the end of the file`);
  const lineStart = lines.slice(0, write.site.line - 1).reduce((total, line) => total + line.length + 1, 0);
  const lineEnd = lineStart + lines[write.site.line - 1]!.length;
  const at = lineStart + write.site.column - 1;
  const pattern = new RegExp(`\\b${write.matcher}\\s*\\(`, "g");
  let nearest: number | undefined;
  for (const match of source.slice(lineStart, lineEnd).matchAll(pattern)) {
    const index = lineStart + match.index;
    if (nearest === undefined || Math.abs(index - at) < Math.abs(nearest - at)) nearest = index;
  }
  if (nearest !== undefined) return nearest;
  pattern.lastIndex = at;
  const next = pattern.exec(source);
  if (next) return next.index;
  throw new InlineSourceError(`no ${write.matcher}( call at line ${write.site.line}`);
}

function skipSpace(source: string, from: number): number {
  let index = from;
  while (index < source.length && /\s/.test(source[index]!)) index++;
  return index;
}

/** The top-level arguments of the call whose `(` is at `open` (their trimmed ranges) and where its `)` is. */
function argumentsOf(source: string, open: number): { list: { start: number; end: number }[]; close: number } {
  const list: { start: number; end: number }[] = [];
  let argumentStart = open + 1;
  let depth = 0;
  const push = (end: number): void => {
    const text = source.slice(argumentStart, end);
    if (text.trim() === "") return;
    const start = argumentStart + (text.length - text.trimStart().length);
    list.push({ start, end: start + text.trim().length });
  };
  for (let index = open + 1; index < source.length; index++) {
    const char = source[index]!;
    if (char === "'" || char === '"') index = skipString(source, index, char);
    else if (char === "`") index = skipTemplate(source, index);
    else if (char === "/" && source[index + 1] === "/") index = source.indexOf("\n", index) < 0 ? source.length : source.indexOf("\n", index);
    else if (char === "/" && source[index + 1] === "*") index = source.indexOf("*/", index + 2) + 1;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) {
      if (depth === 0) {
        push(index);
        return { list, close: index };
      }
      depth--;
    } else if (char === "," && depth === 0) {
      push(index);
      argumentStart = index + 1;
    }
  }
  throw new InlineSourceError("the call's ) was not found");
}

function skipString(source: string, from: number, quote: string): number {
  for (let index = from + 1; index < source.length; index++) {
    if (source[index] === "\\") index++;
    else if (source[index] === quote) return index;
  }
  return source.length;
}

/** From a template literal's opening backquote to its closing one, across `${...}` (which may hold strings and templates). */
function skipTemplate(source: string, from: number): number {
  for (let index = from + 1; index < source.length; index++) {
    const char = source[index];
    if (char === "\\") index++;
    else if (char === "`") return index;
    else if (char === "$" && source[index + 1] === "{") {
      let depth = 0;
      for (index += 1; index < source.length; index++) {
        const inner = source[index]!;
        if (inner === "'" || inner === '"') index = skipString(source, index, inner);
        else if (inner === "`") index = skipTemplate(source, index);
        else if (inner === "{") depth++;
        else if (inner === "}" && --depth === 0) break;
      }
    }
  }
  return source.length;
}
