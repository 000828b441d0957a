// js/test/each_name.ts — the names `.each` gives its rows' tests and describes, as bun formats
// them: printf-style `%s %d %i %f %j %o %p %# %%`, and `$name` / `$a.b` for object rows.

import { format } from "./expect.ts";


const EACH_PLACEHOLDER = /\$([A-Za-z_][\w$]*(?:\.[\w$]+)*)|%[sdifjoOp#%]/g;

export function eachName(template: string, args: readonly unknown[], index: number): string {
  const row = args.length === 1 && isRecord(args[0]) ? args[0] : undefined;
  let next = 0;
  return template.replace(EACH_PLACEHOLDER, (placeholder: string, path: string | undefined) => {
    if (path !== undefined) return row === undefined ? placeholder : (namedValue(row, path) ?? placeholder);
    // As in bun, once the row's values are used up no `%` placeholder is replaced, `%#` and `%%` included.
    if (next >= args.length) return placeholder;
    if (placeholder === "%%") return "%";
    if (placeholder === "%#") return String(index);
    return printfValue(placeholder, args[next++]);
  });
}

function namedValue(row: object, path: string): string | undefined {
  let value: unknown = row;
  for (const key of path.split(".")) {
    if (value === null || value === undefined || !(key in (Object(value) as object))) return undefined;
    value = Reflect.get(Object(value) as object, key);
  }
  return typeof value === "string" ? value : format(value);
}

function printfValue(placeholder: string, value: unknown): string {
  switch (placeholder) {
    case "%s":
      return typeof value === "string" ? value : format(value);
    case "%d":
    case "%f":
      return typeof value === "bigint" ? String(value) : String(Number(value));
    case "%i":
      return typeof value === "bigint" ? String(value) : String(Math.trunc(Number(value)));
    case "%j":
    case "%o":
    case "%O":
      return jsonOrFormat(value);
    default:
      return format(value);
  }
}

function jsonOrFormat(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return format(value); // BigInt or a cycle
  }
}

function isRecord(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
