// `typebox/value`'s validator: whether a value matches a JSON Schema (`check`) and, if not, the
// errors npm `typebox` 1.x reports for it (`errors`): the same keywords checked in the same
// order, the same `keyword`/`schemaPath`/`instancePath`/`params`/`message`, at most eight errors
// per list as typebox keeps. It reads the schema's keywords, not its `~kind`, so it also checks a
// hand-written schema. Formats are format.ts's. Follows typebox's schema/engine (MIT licence,
// Copyright (c) 2017-2026 Haydn Paterson).

import { testFormat } from "awf:typebox/format";

/** One reason a value does not match, as typebox's `Value.Errors` gives it. */
export interface ValueError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

type Schema = Record<string, unknown> | boolean;
type Raw = Omit<ValueError, "message">;

/** typebox's `maxErrors` setting: a list stops growing at this many. */
const MAX_ERRORS = 8;

/** The errors gathered for one schema (each anyOf branch gets its own, as in typebox). */
class Collected {
  readonly errors: Raw[] = [];
  constructor(readonly capacity: number) {}
  full(): boolean {
    return this.errors.length >= this.capacity;
  }
  add(keyword: string, schemaPath: string, instancePath: string, params: Record<string, unknown>): false {
    if (!this.full()) this.errors.push({ keyword, schemaPath, instancePath, params });
    return false;
  }
}

/** Whether `value` matches `schema`. */
export function check(schema: unknown, value: unknown): boolean {
  return visit(new Collected(Infinity), "#", "", schema as Schema, value);
}

/** Why `value` does not match `schema` (empty when it does), at most `capacity` errors. */
export function errors(schema: unknown, value: unknown, capacity = MAX_ERRORS): ValueError[] {
  const collected = new Collected(capacity);
  visit(collected, "#", "", schema as Schema, value);
  return collected.errors.map((error) => ({ ...error, message: message(error) }));
}

/** typebox's en_US wording of an error. */
function message(error: Raw): string {
  const p = error.params as Record<string, any>;
  switch (error.keyword) {
    case "additionalProperties": return "must not have additional properties";
    case "anyOf": return "must match a schema in anyOf";
    case "boolean": return "schema is false";
    case "const": return "must be equal to constant";
    case "contains": return "must contain at least 1 valid item";
    case "enum": return "must be equal to one of the allowed values";
    case "exclusiveMaximum":
    case "exclusiveMinimum":
    case "maximum":
    case "minimum": return `must be ${p.comparison} ${p.limit}`;
    case "format": return `must match format "${p.format}"`;
    case "maxItems": return `must not have more than ${p.limit} items`;
    case "maxLength": return `must not have more than ${p.limit} characters`;
    case "maxProperties": return `must not have more than ${p.limit} properties`;
    case "minItems": return `must not have fewer than ${p.limit} items`;
    case "minLength": return `must not have fewer than ${p.limit} characters`;
    case "minProperties": return `must not have fewer than ${p.limit} properties`;
    case "multipleOf": return `must be multiple of ${p.multipleOf}`;
    case "pattern": return `must match pattern "${p.pattern}"`;
    case "propertyNames": return `property names ${p.propertyNames.join(", ")} are invalid`;
    case "required": return `must have required properties ${p.requiredProperties.join(", ")}`;
    case "type": return typeof p.type === "string" ? `must be ${p.type}` : `must be either ${p.type.join(" or ")}`;
    case "uniqueItems": return "must not have duplicate items";
    default: return `must satisfy ${error.keyword}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Value guards, as typebox's Guard has them.
// ---------------------------------------------------------------------------------------------

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const isPlainObject = (value: unknown): value is Record<string, unknown> => isObject(value) && !Array.isArray(value);
const isNumber = (value: unknown): value is number => Number.isFinite(value);
const keys = (value: object): string[] => Object.getOwnPropertyNames(value);
const has = (schema: Record<string, unknown>, key: string): boolean => key in schema && schema[key] !== undefined;
const encode = (fragment: string): string => fragment.replace(/~/g, "~0").replace(/\//g, "~1");
const codePoints = (value: string): number => [...value].length;

/** typebox's deep equality for const and enum. */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (Array.isArray(left)) {
    return Array.isArray(right) && left.length === right.length && left.every((item, index) => deepEqual(item, right[index]));
  }
  if (isObject(left)) {
    if (!isObject(right)) return false;
    const names = keys(left);
    return names.length === keys(right).length && names.every((name) => deepEqual(left[name], (right as Record<string, unknown>)[name]));
  }
  return left === right;
}

/** A key that is the same for structurally equal JSON values (uniqueItems). */
function hash(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(hash).join(",")}]`;
  if (isObject(value)) return `{${keys(value).sort().map((key) => `${JSON.stringify(key)}:${hash(value[key])}`).join(",")}}`;
  return value === undefined ? "undefined" : `${typeof value}:${String(value)}`;
}

function isMultipleOf(dividend: number, divisor: number): boolean {
  if (!isNumber(dividend)) return true;
  if (Number.isInteger(dividend) && (1 / divisor) % 1 === 0) return true;
  const mod = dividend % divisor;
  return Math.min(Math.abs(mod), Math.abs(mod - divisor), Math.abs(mod + divisor)) < 1e-10;
}

function isTypeName(type: unknown, value: unknown): boolean {
  switch (type) {
    case "object": return isPlainObject(value);
    case "array": return Array.isArray(value);
    case "boolean": return typeof value === "boolean";
    case "integer": return Number.isInteger(value);
    case "number": return isNumber(value);
    case "null": return value === null;
    case "string": return typeof value === "string";
    default: return true;
  }
}

// ---------------------------------------------------------------------------------------------
// The walk: typebox's ErrorSchema, keyword by keyword in its order. Every keyword runs (so all
// errors are gathered) and the schema matches when all of them pass.
// ---------------------------------------------------------------------------------------------

function visit(into: Collected, schemaPath: string, instancePath: string, schema: Schema, value: unknown): boolean {
  if (into.full()) return false;
  if (schema === true) return true;
  if (schema === false) return into.add("boolean", schemaPath, instancePath, {});
  if (!isObject(schema)) return true;
  const results: boolean[] = [];
  const run = (keyword: string, test: () => boolean) => {
    if (has(schema, keyword)) results.push(test());
  };
  run("type", () => {
    const type = schema.type;
    const ok = Array.isArray(type) ? type.some((name) => isTypeName(name, value)) : isTypeName(type, value);
    return ok || into.add("type", schemaPath, instancePath, { type });
  });
  if (isPlainObject(value)) objectKeywords(into, schemaPath, instancePath, schema, value, run);
  if (Array.isArray(value)) arrayKeywords(into, schemaPath, instancePath, schema, value, run);
  if (typeof value === "string") {
    const length = codePoints(value);
    run("minLength", () => length >= (schema.minLength as number) || into.add("minLength", schemaPath, instancePath, { limit: schema.minLength }));
    run("maxLength", () => length <= (schema.maxLength as number) || into.add("maxLength", schemaPath, instancePath, { limit: schema.maxLength }));
    run("format", () => testFormat(schema.format as string, value) || into.add("format", schemaPath, instancePath, { format: schema.format }));
    run("pattern", () => new RegExp(schema.pattern as string, "u").test(value) || into.add("pattern", schemaPath, instancePath, { pattern: schema.pattern }));
  }
  if (isNumber(value)) {
    const bound = (keyword: string, comparison: string, ok: (limit: number) => boolean) =>
      run(keyword, () => ok(schema[keyword] as number) || into.add(keyword, schemaPath, instancePath, { comparison, limit: schema[keyword] }));
    bound("exclusiveMinimum", ">", (limit) => value > limit);
    bound("exclusiveMaximum", "<", (limit) => value < limit);
    bound("minimum", ">=", (limit) => value >= limit);
    bound("maximum", "<=", (limit) => value <= limit);
    run("multipleOf", () => isMultipleOf(value, schema.multipleOf as number) || into.add("multipleOf", schemaPath, instancePath, { multipleOf: schema.multipleOf }));
  }
  run("const", () => deepEqual(schema.const, value) || into.add("const", schemaPath, instancePath, { allowedValue: schema.const }));
  run("enum", () => (schema.enum as unknown[]).some((option) => deepEqual(option, value)) || into.add("enum", schemaPath, instancePath, { allowedValues: schema.enum }));
  run("anyOf", () => anyOf(into, schemaPath, instancePath, schema.anyOf as Schema[], value));
  return results.every(Boolean);
}

type Run = (keyword: string, test: () => boolean) => void;

function objectKeywords(into: Collected, schemaPath: string, instancePath: string, schema: Record<string, unknown>, value: Record<string, unknown>, run: Run): void {
  const at = (key: string) => `${instancePath}/${encode(key)}`;
  run("required", () => {
    const missing = (schema.required as string[]).filter((key) => !(key in value));
    return missing.length === 0 || into.add("required", schemaPath, instancePath, { requiredProperties: missing });
  });
  run("additionalProperties", () => {
    const additional = schema.additionalProperties as Schema;
    if (additional === true || (isObject(additional) && keys(additional).length === 0)) return true;
    const known = knownKeys(schema);
    const refused = keys(value).filter((key) =>
      !known.test(key) && !visit(into, `${schemaPath}/additionalProperties`, at(key), additional, value[key]));
    return refused.length === 0 || into.add("additionalProperties", schemaPath, instancePath, { additionalProperties: refused });
  });
  run("patternProperties", () => every(Object.entries(schema.patternProperties as Record<string, Schema>), ([pattern, inner]) => {
    const regexp = new RegExp(pattern, "u");
    return every(Object.entries(value), ([key, item]) =>
      !regexp.test(key) || visit(into, `${schemaPath}/patternProperties/${encode(pattern)}`, at(key), inner, item));
  }));
  run("properties", () => {
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    return every(Object.entries(schema.properties as Record<string, Schema>), ([key, inner]) =>
      (!required.includes(key) && value[key] === undefined) || !(key in value)
      || visit(into, `${schemaPath}/properties/${encode(key)}`, at(key), inner, value[key]));
  });
  run("propertyNames", () => {
    const refused = keys(value).filter((key) => !visit(into, `${schemaPath}/propertyNames`, at(key), schema.propertyNames as Schema, key));
    return refused.length === 0 || into.add("propertyNames", schemaPath, instancePath, { propertyNames: refused });
  });
  const count = keys(value).length;
  run("minProperties", () => count >= (schema.minProperties as number) || into.add("minProperties", schemaPath, instancePath, { limit: schema.minProperties }));
  run("maxProperties", () => count <= (schema.maxProperties as number) || into.add("maxProperties", schemaPath, instancePath, { limit: schema.maxProperties }));
}

function arrayKeywords(into: Collected, schemaPath: string, instancePath: string, schema: Record<string, unknown>, value: unknown[], run: Run): void {
  const matches = (inner: Schema, item: unknown) => visit(new Collected(Infinity), schemaPath, instancePath, inner, item);
  const sized = Array.isArray(schema.items) ? (schema.items as Schema[]) : undefined;
  run("additionalItems", () => sized === undefined || value.every((item, index) =>
    index < sized.length || visit(into, `${schemaPath}/additionalItems`, `${instancePath}/${index}`, schema.additionalItems as Schema, item)));
  run("contains", () => schema.minContains === 0
    || (value.length > 0 && value.some((item) => matches(schema.contains as Schema, item)))
    || into.add("contains", schemaPath, instancePath, { minContains: 1 }));
  run("items", () => sized !== undefined
    ? every(sized, (inner, index) => value.length <= index || visit(into, `${schemaPath}/items/${index}`, `${instancePath}/${index}`, inner, value[index]))
    : every(value, (item, index) => visit(into, `${schemaPath}/items`, `${instancePath}/${index}`, schema.items as Schema, item)));
  const contained = () => value.filter((item) => matches(schema.contains as Schema, item)).length;
  run("minContains", () => !has(schema, "contains") || contained() >= (schema.minContains as number)
    || into.add("contains", schemaPath, instancePath, { minContains: schema.minContains }));
  run("maxContains", () => !has(schema, "contains") || contained() <= (schema.maxContains as number)
    || into.add("contains", schemaPath, instancePath, { minContains: has(schema, "minContains") ? schema.minContains : 1, maxContains: schema.maxContains }));
  run("minItems", () => value.length >= (schema.minItems as number) || into.add("minItems", schemaPath, instancePath, { limit: schema.minItems }));
  run("maxItems", () => value.length <= (schema.maxItems as number) || into.add("maxItems", schemaPath, instancePath, { limit: schema.maxItems }));
  run("uniqueItems", () => {
    if (schema.uniqueItems === false) return true;
    const seen = new Set<string>();
    const duplicateItems: number[] = [];
    value.forEach((item, index) => {
      const key = hash(item);
      if (seen.has(key)) duplicateItems.push(index);
      seen.add(key);
    });
    return duplicateItems.length === 0 || into.add("uniqueItems", schemaPath, instancePath, { duplicateItems });
  });
}

/** Each branch in its own list; when none matches, every branch's errors and then anyOf's. */
function anyOf(into: Collected, schemaPath: string, instancePath: string, branches: Schema[], value: unknown): boolean {
  const failed: Collected[] = [];
  let matched = false;
  branches.forEach((branch, index) => {
    const own = new Collected(into.capacity);
    if (visit(own, `${schemaPath}/anyOf/${index}`, instancePath, branch, value)) matched = true;
    else failed.push(own);
  });
  if (matched) return true;
  for (const branch of failed) for (const error of branch.errors) into.add(error.keyword, error.schemaPath, error.instancePath, error.params);
  return into.add("anyOf", schemaPath, instancePath, {});
}

/** The keys `properties` and `patternProperties` cover, as one expression (typebox's). */
function knownKeys(schema: Record<string, unknown>): RegExp {
  const patterns = [
    ...(isObject(schema.patternProperties) ? keys(schema.patternProperties) : []),
    ...(isObject(schema.properties) ? keys(schema.properties).map((key) => `^${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) : []),
  ];
  return new RegExp(patterns.length === 0 ? "(?!)" : `(${patterns.join("|")})`, "u");
}

/** `every` that visits every element (so each one's errors are gathered), as typebox's EveryAll. */
function every<T>(items: T[], test: (item: T, index: number) => boolean): boolean {
  let all = true;
  items.forEach((item, index) => {
    if (!test(item, index)) all = false;
  });
  return all;
}
