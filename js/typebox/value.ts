// The built-in `typebox/value` module: `Value.Check`, `Errors`, `Default`, `Clean`, `Convert`,
// `Parse` and `Create`, giving the same results as npm `typebox` 1.x's `Value` for the schemas
// awf's `Type` builds (tests/cli/typebox.rs compares the two under node). Checking is check.ts's;
// this file owns the value operations, which like typebox's choose by the schema's hidden
// `~kind` (a hand-written schema without one is left as it is). Default, Clean and Convert
// change the value they are given, as typebox's do. Follows typebox's value/ (MIT licence,
// Copyright (c) 2017-2026 Haydn Paterson). Editors see typings/typebox.d.ts.

import { check, errors, type ValueError } from "awf:typebox/check";

export type { ValueError };

type Schema = Record<string, any>;
type Dict = Record<string, unknown>;

const kindOf = (schema: unknown): string | undefined =>
  typeof schema === "object" && schema !== null ? (schema as { "~kind"?: string })["~kind"] : undefined;
const isObject = (value: unknown): value is Dict => typeof value === "object" && value !== null;
const isPlainObject = (value: unknown): value is Dict => isObject(value) && !Array.isArray(value);
const keys = (value: object): string[] => Object.getOwnPropertyNames(value);
const hasDefault = (schema: Schema): boolean => isObject(schema) && "default" in schema;
const isOptional = (schema: unknown): boolean => isObject(schema) && "~optional" in schema;
const recordPattern = (schema: Schema): string => keys(schema.patternProperties)[0]!;

/** A deep copy of plain data (arrays and objects; other values as they are). */
function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (isPlainObject(value) && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    return Object.fromEntries(keys(value).map((key) => [key, clone(value[key])])) as T;
  }
  return value;
}

/** An Enum read as the Union of its Literals, as typebox evaluates it. */
function enumAsUnion(schema: Schema): Schema {
  const literals = (schema.enum as unknown[]).map((value) =>
    Object.defineProperty({ type: typeof value, const: value }, "~kind", { value: "Literal", enumerable: false }));
  return Object.defineProperty({ anyOf: literals }, "~kind", { value: "Union", enumerable: false });
}

// ---------------------------------------------------------------------------------------------
// Default: fill in `default` annotations where the value is undefined.
// ---------------------------------------------------------------------------------------------

function fromDefault(schema: Schema, value: unknown): unknown {
  if (value !== undefined) return value;
  return typeof schema.default === "function" ? schema.default() : clone(schema.default);
}

function defaulted(schema: Schema, value: unknown): unknown {
  const current = hasDefault(schema) ? fromDefault(schema, value) : value;
  switch (kindOf(schema)) {
    case "Array":
      if (Array.isArray(current)) current.forEach((item, index) => (current[index] = defaulted(schema.items, item)));
      return current;
    case "Tuple":
      if (Array.isArray(current)) (schema.items as Schema[]).forEach((item, index) => (current[index] = defaulted(item, current[index])));
      return current;
    case "Object": {
      if (!isObject(current)) return current;
      const known = keys(schema.properties);
      for (const key of known) {
        const property = schema.properties[key];
        const next = defaulted(property, (current as Dict)[key]);
        if (next === undefined && (isOptional(property) || !hasDefault(property))) continue;
        (current as Dict)[key] = next;
      }
      if (!isObject(schema.additionalProperties)) return current;
      for (const key of keys(current)) {
        if (!known.includes(key)) (current as Dict)[key] = defaulted(schema.additionalProperties, (current as Dict)[key]);
      }
      return current;
    }
    case "Record": {
      if (!isObject(current)) return current;
      const pattern = new RegExp(recordPattern(schema));
      const inner = schema.patternProperties[recordPattern(schema)];
      for (const key of keys(current)) {
        if (pattern.test(key) && hasDefault(inner)) (current as Dict)[key] = defaulted(inner, (current as Dict)[key]);
      }
      if (!isObject(schema.additionalProperties)) return current;
      for (const key of keys(current)) {
        if (!pattern.test(key)) (current as Dict)[key] = defaulted(schema.additionalProperties, (current as Dict)[key]);
      }
      return current;
    }
    case "Union":
      for (const inner of schema.anyOf as Schema[]) {
        const result = defaulted(inner, clone(current));
        if (check(inner, result)) return result;
      }
      return current;
    default:
      return current;
  }
}

// ---------------------------------------------------------------------------------------------
// Clean: drop what the schema does not describe (unknown properties, surplus tuple items).
// ---------------------------------------------------------------------------------------------

function cleanUnknown(schema: Schema, value: Dict, key: string, known: boolean, inner: () => Schema): void {
  if (known) {
    value[key] = cleaned(inner(), value[key]);
    return;
  }
  const additional = schema.additionalProperties;
  if (additional === true || (isObject(additional) && check(additional, value[key]))) {
    value[key] = cleaned(additional as Schema, value[key]);
    return;
  }
  delete value[key];
}

function cleaned(schema: Schema, value: unknown): unknown {
  switch (kindOf(schema)) {
    case "Array":
      return Array.isArray(value) ? value.map((item) => cleaned(schema.items, item)) : value;
    case "Tuple": {
      if (!Array.isArray(value)) return value;
      const length = Math.min(value.length, schema.items.length);
      for (let index = 0; index < length; index++) value[index] = cleaned(schema.items[index], value[index]);
      return value.length > length ? value.slice(0, length) : value;
    }
    case "Object":
      if (!isPlainObject(value)) return value;
      for (const key of keys(value)) {
        const known = Object.hasOwn(schema.properties, key) && isObject(schema.properties[key]);
        cleanUnknown(schema, value, key, known, () => schema.properties[key]);
      }
      return value;
    case "Record": {
      if (!isObject(value)) return value;
      const pattern = new RegExp(recordPattern(schema));
      for (const key of keys(value)) {
        cleanUnknown(schema, value as Dict, key, pattern.test(key), () => schema.patternProperties[recordPattern(schema)]);
      }
      return value;
    }
    case "Union":
      for (const inner of narrowestFirst(schema.anyOf as Schema[])) {
        const result = cleaned(inner, clone(value));
        if (check(inner, result)) return result;
      }
      return value;
    default:
      return value;
  }
}

/**
 * Union members from narrowest to broadest (typebox's UnionPrioritySort, an insertion sort by
 * its type relation), so a Literal is tried before the String it is one of.
 */
function narrowestFirst(types: Schema[]): Schema[] {
  const sorted: Schema[] = [];
  for (const type of types) {
    const at = sorted.findIndex((left) => extendsType(type, left));
    if (at === -1) sorted.push(type);
    else sorted.splice(at, 0, type);
  }
  return sorted;
}

/** Whether every value of `left` is a value of `right`, for the kinds `Type` builds. */
function extendsType(left: Schema, right: Schema): boolean {
  const [l, r] = [kindOf(left), kindOf(right)];
  if (r === "Any" || r === "Unknown") return true;
  if (l === "Enum") return extendsType(enumAsUnion(left), right);
  if (r === "Enum") return extendsType(left, enumAsUnion(right));
  if (l === "Union") return (left.anyOf as Schema[]).every((member) => extendsType(member, right));
  if (r === "Union") return (right.anyOf as Schema[]).some((member) => extendsType(left, member));
  switch (l) {
    case "Literal":
      return r === "Literal" ? left.const === right.const : typeof left.const === scalarType(r);
    case "Integer":
      return r === "Integer" || r === "Number";
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
      return l === r;
    case "Array":
      return r === "Array" && extendsType(left.items, right.items);
    case "Tuple":
      if (r === "Array") return (left.items as Schema[]).every((item) => extendsType(item, right.items));
      return r === "Tuple" && left.items.length === right.items.length
        && (left.items as Schema[]).every((item, index) => extendsType(item, right.items[index]));
    case "Object":
      return r === "Object" && keys(right.properties).every((key) => Object.hasOwn(left.properties, key)
        ? (isOptional(right.properties[key]) || !isOptional(left.properties[key])) && extendsType(left.properties[key], right.properties[key])
        : isOptional(right.properties[key]));
    default:
      return false;
  }
}

function scalarType(kind: string | undefined): string | undefined {
  return kind === "String" ? "string" : kind === "Number" ? "number" : kind === "Boolean" ? "boolean" : undefined;
}

// ---------------------------------------------------------------------------------------------
// Convert: coerce scalars where a reasonable conversion exists ("42" to 42, "true" to true).
// ---------------------------------------------------------------------------------------------

/** A conversion's result, or undefined when there is none. */
type Converted = { value: unknown } | undefined;

function toNumber(value: unknown): Converted {
  if (typeof value === "boolean") return { value: value ? 1 : 0 };
  if (Number.isFinite(value)) return { value };
  if (value === null || value === undefined) return { value: 0 };
  if (typeof value !== "string") return undefined;
  const coerced = +value;
  if (Number.isFinite(coerced)) return { value: coerced };
  const lowercase = value.toLowerCase();
  if (lowercase === "false") return { value: 0 };
  if (lowercase === "true") return { value: 1 };
  if (/^-?(0|[1-9]\d*)n$/.test(value)) {
    const number = Number(value.slice(0, -1));
    return Number.isSafeInteger(number) ? { value: number } : undefined;
  }
  return undefined;
}

function toBoolean(value: unknown): Converted {
  if (typeof value === "boolean") return { value };
  if (Number.isFinite(value)) return value === 0 ? { value: false } : value === 1 ? { value: true } : undefined;
  if (value === null || value === undefined) return { value: false };
  if (typeof value !== "string") return undefined;
  const lowercase = value.toLowerCase();
  if (lowercase === "false" || value === "0") return { value: false };
  if (lowercase === "true" || value === "1") return { value: true };
  return undefined;
}

function toString(value: unknown): Converted {
  if (typeof value === "boolean" || Number.isFinite(value) || typeof value === "string") return { value: String(value) };
  if (value === null) return { value: "null" };
  if (value === undefined) return { value: "" };
  return undefined;
}

function toNull(value: unknown): Converted {
  if (value === false || value === 0 || value === null || value === undefined) return { value: null };
  if (typeof value !== "string") return undefined;
  const lowercase = value.toLowerCase();
  return lowercase === "undefined" || lowercase === "null" || value === "" || value === "0" ? { value: null } : undefined;
}

const orValue = (result: Converted, value: unknown): unknown => (result === undefined ? value : result.value);

function convertAdditional(patterns: RegExp[], additional: Schema, value: Dict): void {
  const names = keys(value);
  for (const pattern of patterns) {
    for (const key of names) if (!pattern.test(key)) value[key] = converted(additional, value[key]);
  }
}

function converted(schema: Schema, value: unknown): unknown {
  switch (kindOf(schema)) {
    case "Array":
      return (Array.isArray(value) ? value : [value]).map((item) => converted(schema.items, item));
    case "Boolean": return orValue(toBoolean(value), value);
    case "Enum": return converted(enumAsUnion(schema), value);
    case "Integer": {
      const result = toNumber(value);
      return result === undefined ? value : Math.trunc(result.value as number);
    }
    case "Literal": {
      if (schema.const === value) return value;
      const convert = typeof schema.const === "boolean" ? toBoolean : typeof schema.const === "number" ? toNumber : toString;
      const result = convert(value);
      return result !== undefined && result.value === schema.const ? result.value : value;
    }
    case "Null": return orValue(toNull(value), value);
    case "Number": return orValue(toNumber(value), value);
    case "String": return orValue(toString(value), value);
    case "Object":
    case "Record": {
      if (!isPlainObject(value)) return value;
      const table = kindOf(schema) === "Object" ? schema.properties : schema.patternProperties;
      const entries = keys(table).map((key) => [new RegExp(`^${key}$`), table[key]] as const);
      const names = keys(value);
      for (const [pattern, inner] of entries) {
        for (const key of names) {
          if (!pattern.test(key) || (kindOf(schema) === "Object" && isOptional(inner) && value[key] === undefined)) continue;
          value[key] = converted(inner, value[key]);
        }
      }
      if (isObject(schema.additionalProperties)) convertAdditional(entries.map(([pattern]) => pattern), schema.additionalProperties, value);
      return value;
    }
    case "Tuple":
      if (!Array.isArray(value)) return value;
      for (let index = 0; index < Math.min(schema.items.length, value.length); index++) value[index] = converted(schema.items[index], value[index]);
      return value;
    case "Union": {
      if ((schema.anyOf as Schema[]).some((inner) => check(inner, value))) return value;
      const candidates = (schema.anyOf as Schema[]).map((inner) => converted(inner, clone(value)));
      const selected = candidates.find((candidate) => check(schema, candidate));
      return selected === undefined ? value : selected;
    }
    default:
      return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Create: the simplest value a schema accepts, or its `default`.
// ---------------------------------------------------------------------------------------------

/** Thrown by `Value.Create` for a schema it cannot make a value for without a `default`. */
export class CreateError extends Error {
  constructor(readonly schema: unknown, message: string) {
    super(message);
  }
}

function created(schema: Schema): unknown {
  if (hasDefault(schema)) {
    return typeof schema.default === "function" ? schema.default(schema) : isObject(schema.default) ? clone(schema.default) : schema.default;
  }
  const lowest = () => (Number.isFinite(schema.exclusiveMinimum) ? schema.exclusiveMinimum + 1 : "minimum" in schema ? schema.minimum : 0);
  switch (kindOf(schema)) {
    case "Array":
      if ("uniqueItems" in schema) throw new CreateError(schema, "Arrays with uniqueItems constraints must specify a default annotation");
      return Array.from({ length: "minItems" in schema ? schema.minItems : 0 }, () => created(schema.items));
    case "Boolean": return false;
    case "Enum": return created(enumAsUnion(schema));
    case "Integer":
    case "Number": return lowest();
    case "Literal": return schema.const;
    case "Null": return null;
    case "Object":
      return Object.fromEntries(((schema.required ?? []) as string[]).map((key) => [key, created(schema.properties[key])]));
    case "Record":
      if ("minProperties" in schema) throw new CreateError(schema, "Record with the minProperties constraint must have a default annotation");
      return {};
    case "String":
      if ("pattern" in schema || "format" in schema) throw new CreateError(schema, "Strings with format or pattern constraints must specify default");
      return "".padEnd("minLength" in schema ? schema.minLength : 0);
    case "Tuple":
      return Array.from({ length: schema.minItems }, (_, index) => created(schema.items[index]));
    case "Union":
      if (schema.anyOf.length === 0) throw new CreateError(schema, "Unable to create Union with no variants");
      return created(schema.anyOf[0]);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Parse, and the Value namespace.
// ---------------------------------------------------------------------------------------------

/** Thrown by `Value.Parse`: `cause` holds `{ source, errors, value }` as typebox's does. */
export class ParseError extends Error {
  declare readonly cause: { source: "Parse"; errors: ValueError[]; value: unknown };
  constructor(value: unknown, found: ValueError[]) {
    const first = found[0];
    const where = first === undefined ? "" : `: ${first.instancePath === "" ? "the value" : first.instancePath} ${first.message}`;
    super(`Parse${where}`);
    Object.defineProperty(this, "cause", { value: { source: "Parse", errors: found, value }, enumerable: false });
  }
}

export const Value = {
  /** Whether `value` matches `schema`. */
  Check(schema: unknown, value: unknown): boolean {
    return check(schema, value);
  },
  /** Why `value` does not match `schema`: at most eight errors, as typebox gives them. */
  Errors(schema: unknown, value: unknown): ValueError[] {
    return errors(schema, value);
  },
  /** Fills in `default` annotations where `value` is undefined; changes `value` and returns it. */
  Default(schema: unknown, value: unknown): unknown {
    return defaulted(schema as Schema, value);
  },
  /** Removes properties and tuple items `schema` does not describe; changes `value` and returns it. */
  Clean(schema: unknown, value: unknown): unknown {
    return cleaned(schema as Schema, value);
  },
  /** Coerces scalars to the types `schema` asks for where it can; changes `value` and returns it. */
  Convert(schema: unknown, value: unknown): unknown {
    return converted(schema as Schema, value);
  },
  /** The simplest value `schema` accepts (its `default` where it has one). */
  Create(schema: unknown): unknown {
    return created(schema as Schema);
  },
  /** `value` when it matches `schema`; otherwise throws a ParseError with the first error. */
  Parse(schema: unknown, value: unknown): unknown {
    if (check(schema, value)) return value;
    throw new ParseError(value, errors(schema, value, 1));
  },
};

export default Value;

export const { Check, Errors, Default, Clean, Convert, Create, Parse } = Value;
