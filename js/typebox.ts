// The built-in `typebox` module: a `Type` builder that emits the same JSON Schema as the npm
// package `typebox` 1.x (same keys in the same order, as `JSON.stringify` sees them) and infers
// the same static types, for the builders awf supports. Like typebox, each schema carries its
// kind as a hidden (non-enumerable) `~kind` and an optional property a hidden `~optional`, so
// builders can read them while JSON never does. Editors see typings/typebox.d.ts instead.

// ---------------------------------------------------------------------------------------------
// Schema types: what each builder returns. `~kind` and `~optional` exist at run time, hidden.
// ---------------------------------------------------------------------------------------------

/** Anything a builder returns, or a value awf's `typed(...)` wraps. */
export type TSchema = object;

/** Keywords every schema takes; any other key passes into the schema unchanged, as in typebox. */
export interface TSchemaOptions {
  [keyword: string]: unknown;
  $schema?: string;
  $id?: string;
  title?: string;
  description?: string;
  default?: unknown;
  examples?: unknown;
  readOnly?: boolean;
  writeOnly?: boolean;
}
export interface TStringOptions extends TSchemaOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}
export interface TNumberOptions extends TSchemaOptions {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
}
export interface TArrayOptions extends TSchemaOptions {
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  contains?: TSchema;
  minContains?: number;
  maxContains?: number;
}
export interface TObjectOptions extends TSchemaOptions {
  additionalProperties?: TSchema | boolean;
  minProperties?: number;
  maxProperties?: number;
  propertyNames?: TSchema;
}

export type TLiteralValue = string | number | boolean;
export type TEnumValue = string | number;
export type TProperties = { [key: string]: TSchema };

export interface TAny { "~kind": "Any" }
export interface TUnknown { "~kind": "Unknown" }
export interface TNull { "~kind": "Null"; type: "null" }
export interface TBoolean { "~kind": "Boolean"; type: "boolean" }
export interface TString { "~kind": "String"; type: "string" }
export interface TNumber { "~kind": "Number"; type: "number" }
export interface TInteger { "~kind": "Integer"; type: "integer" }
export interface TLiteral<V extends TLiteralValue = TLiteralValue> {
  "~kind": "Literal";
  type: V extends string ? "string" : V extends number ? "number" : "boolean";
  const: V;
}
export interface TEnum<V extends TEnumValue = TEnumValue> { "~kind": "Enum"; enum: V[] }
export interface TUnion<Types extends TSchema[] = TSchema[]> { "~kind": "Union"; anyOf: Types }
export interface TArray<Items extends TSchema = TSchema> { "~kind": "Array"; type: "array"; items: Items }
export interface TTuple<Types extends TSchema[] = TSchema[]> {
  "~kind": "Tuple";
  type: "array";
  additionalItems: false;
  items: Types;
  minItems: Types["length"];
}
export interface TObject<Properties extends TProperties = TProperties> {
  "~kind": "Object";
  type: "object";
  required?: string[];
  properties: Properties;
}
export interface TRecord<Key extends string = string, Value extends TSchema = TSchema> {
  "~kind": "Record";
  type: "object";
  patternProperties: { [_ in Key]: Value };
}
/** A schema marked optional: the property holding it in an Object may be absent. */
export type TOptional<T extends TSchema = TSchema> = T & { "~optional": true };

/** The key patterns typebox gives a Record by its key type. */
const StringKey = "^.*$";
const IntegerKey = "^-?(?:0|[1-9][0-9]*)$";
const NumberKey = "^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$";
type TStringKey = typeof StringKey;
type TIntegerKey = typeof IntegerKey;
type TNumberKey = typeof NumberKey;

/** Key schemas `Record` understands. */
export type TRecordKey = TString | TNumber | TInteger | TLiteral<TEnumValue> | TEnum | TUnion;

/** What `Record` builds: a pattern record for open keys, an Object for a finite set of keys. */
export type TRecordOf<Key extends TRecordKey, Value extends TSchema> =
  Key extends TInteger ? TRecord<TIntegerKey, Value>
  : Key extends TNumber ? TRecord<TNumberKey, Value>
  : Key extends TString ? TRecord<TStringKey, Value>
  : Key extends TLiteral<infer V extends TEnumValue> ? TObject<{ [_ in `${V}`]: Value }>
  : Key extends TEnum<infer V> ? TObject<{ [_ in `${V}`]: Value }>
  : Key extends TUnion<infer Types> ? (
      Types[number] extends TLiteral<infer V extends TEnumValue> ? TObject<{ [_ in `${V}`]: Value }>
      : TRecord<TStringKey, Value>)
  : never;

/** What `Partial` builds: every property optional; a Union maps over its members. */
export type TPartial<T extends TSchema> =
  T extends TObject<infer Properties> ? TObject<{ [K in keyof Properties]: TOptional<Properties[K]> }>
  : T extends TUnion<infer Types> ? TUnion<{ [I in keyof Types]: TPartial<Types[I]> }>
  : TObject<{}>;

// ---------------------------------------------------------------------------------------------
// Static types: the TypeScript type of the data a schema accepts.
// ---------------------------------------------------------------------------------------------

/**
 * The hook awf's `typed(schema)` result carries (a phantom property, absent at run time) so that
 * `Static` of it is the type it was typed with, whatever the schema inside.
 */
export interface TypedSchema<T> { readonly "~awf.static": T }

type Evaluate<T> = { [K in keyof T]: T[K] } & {};
type OptionalKeys<P extends TProperties> = { [K in keyof P]: P[K] extends TOptional ? K : never }[keyof P];
type StaticObject<P extends TProperties> = keyof P extends never ? object : Evaluate<
  { [K in Exclude<keyof P, OptionalKeys<P>>]: StaticType<P[K]> } & { [K in OptionalKeys<P>]?: StaticType<P[K]> }
>;

/** The static type of a schema (distributes over a union of schema types). */
export type StaticType<T> =
  T extends TypedSchema<infer Typed> ? Typed
  : T extends TAny ? any
  : T extends TUnknown ? unknown
  : T extends TNull ? null
  : T extends TBoolean ? boolean
  : T extends TString ? string
  : T extends TNumber | TInteger ? number
  : T extends TLiteral<infer V> ? V
  : T extends TEnum<infer V> ? V
  : T extends TUnion<infer Types> ? StaticType<Types[number]>
  : T extends TArray<infer Items> ? StaticType<Items>[]
  : T extends TTuple<infer Types> ? { [I in keyof Types]: StaticType<Types[I]> }
  : T extends TObject<infer Properties> ? StaticObject<Properties>
  : T extends TRecord<infer Key, infer Value> ? Record<Key extends TIntegerKey | TNumberKey ? number : string, StaticType<Value>>
  : unknown;

/** `Static<typeof X>`: the type of the data schema `X` accepts, as typebox infers it. */
export type Static<T> = StaticType<T>;

// ---------------------------------------------------------------------------------------------
// Construction, following typebox's `Memory.Create` and `Memory.Update`.
// ---------------------------------------------------------------------------------------------

/** Sets a marker JSON must not see, as typebox does with its `~` properties. */
function hide<T extends object>(target: T, key: "~kind" | "~optional", value: unknown): T {
  return Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}

/** A fresh schema: keywords, then options; an option naming a keyword replaces it in place. */
function create<S>(kind: string, keywords: object, options: object = {}): S {
  return hide({ ...keywords, ...options }, "~kind", kind) as S;
}

/** Options applied to a derived schema (Partial, Record): an option naming a keyword moves to the end. */
function update<S extends object>(schema: S, options: object): S {
  for (const key of Object.keys(options)) delete (schema as Record<string, unknown>)[key];
  return Object.assign(schema, options);
}

/** Reads the hidden kind every schema from this module (or typebox) carries. */
function isKind(schema: TSchema, kind: string): boolean {
  return (schema as { "~kind"?: string })["~kind"] === kind;
}

/** Union members with nested unions spread in place, as typebox reads a Record key. */
function flatten(types: TSchema[]): TSchema[] {
  return types.flatMap((type) => (isKind(type, "Union") ? flatten((type as TUnion).anyOf) : [type]));
}

/** A Record keyed by one pattern. */
function patternRecord(pattern: string, value: TSchema): TRecord {
  return create("Record", { type: "object", patternProperties: { [pattern]: value } });
}

/** An Object with one required property per key. */
function keyedObject(keys: TLiteralValue[], value: TSchema): TObject {
  return Type.Object(Object.fromEntries(keys.map((key) => [String(key), value])));
}

/** Record's schema before options, chosen by the key's kind as typebox does. */
function recordOf(key: TRecordKey, value: TSchema): TRecord | TObject {
  switch (key["~kind"]) {
    case "String": {
      const { pattern } = key as { pattern?: unknown };
      return patternRecord(typeof pattern === "string" ? pattern : StringKey, value);
    }
    case "Integer": return patternRecord(IntegerKey, value);
    case "Number": return patternRecord(NumberKey, value);
    case "Literal": return keyedObject([key.const], value);
    case "Enum": return keyedObject(key.enum, value);
    case "Union": {
      const members = flatten(key.anyOf);
      const open = members.some((member) => isKind(member, "String") || isKind(member, "Number") || isKind(member, "Integer"));
      if (open) return patternRecord(StringKey, value);
      const literals = members.filter((member): member is TLiteral<TEnumValue> =>
        isKind(member, "Literal") && typeof (member as TLiteral).const !== "boolean");
      return keyedObject(literals.map((literal) => literal.const), value);
    }
    // Only plain JS gets here (the typings refuse other keys): typebox's answer for most of them.
    default: return Type.Object({});
  }
}

/** Partial's schema before options; like typebox it keeps none of the Object's own options. */
function partialOf(type: TSchema): TObject | TUnion {
  if (isKind(type, "Union")) return Type.Union((type as TUnion).anyOf.map(partialOf));
  const properties = isKind(type, "Object") ? (type as TObject).properties : {};
  return Type.Object(Object.fromEntries(Object.getOwnPropertyNames(properties).map((key) => [key, Type.Optional(properties[key]!)])));
}

// ---------------------------------------------------------------------------------------------
// The builder.
// ---------------------------------------------------------------------------------------------

export const Type = {
  /** Any value: `{}`. */
  Any(options?: TSchemaOptions): TAny {
    return create("Any", {}, options);
  },

  /** Any value, typed `unknown`: `{}`. */
  Unknown(options?: TSchemaOptions): TUnknown {
    return create("Unknown", {}, options);
  },

  /** `null`: `{ type: "null" }`. */
  Null(options?: TSchemaOptions): TNull {
    return create("Null", { type: "null" }, options);
  },

  /** `true` or `false`: `{ type: "boolean" }`. */
  Boolean(options?: TSchemaOptions): TBoolean {
    return create("Boolean", { type: "boolean" }, options);
  },

  /** A string: `{ type: "string" }` plus minLength, maxLength, pattern, format. */
  String(options?: TStringOptions): TString {
    return create("String", { type: "string" }, options);
  },

  /** A number: `{ type: "number" }` plus minimum, maximum, exclusive bounds, multipleOf. */
  Number(options?: TNumberOptions): TNumber {
    return create("Number", { type: "number" }, options);
  },

  /** A whole number: `{ type: "integer" }`, typed `number`. */
  Integer(options?: TNumberOptions): TInteger {
    return create("Integer", { type: "integer" }, options);
  },

  /** Exactly one value: `{ type, const }`, typed as that literal. */
  Literal<V extends TLiteralValue>(value: V, options?: TSchemaOptions): TLiteral<V> {
    return create("Literal", { type: typeof value, const: value }, options);
  },

  /**
   * One of a list of strings or numbers: `{ enum: [...] }`, typed as their union. Also takes an
   * enum-like object, whose values are used and numeric reverse-mapping keys skipped.
   */
  Enum<const V extends TEnumValue>(values: readonly V[] | { readonly [name: string]: V }, options?: TSchemaOptions): TEnum<V> {
    const list = Array.isArray(values)
      ? values
      : Object.getOwnPropertyNames(values).filter((name) => isNaN(Number(name))).map((name) => (values as Record<string, V>)[name]);
    return create("Enum", { enum: list }, options);
  },

  /** Any of the given schemas: `{ anyOf: [...] }`, typed as their union. */
  Union<Types extends TSchema[]>(anyOf: [...Types], options?: TSchemaOptions): TUnion<Types> {
    return create("Union", { anyOf }, options);
  },

  /** A list of one schema: `{ type: "array", items }`, typed `T[]`. */
  Array<Items extends TSchema>(items: Items, options?: TArrayOptions): TArray<Items> {
    return create("Array", { type: "array", items }, options);
  },

  /**
   * A fixed-length list: `{ type: "array", additionalItems: false, items: [...], minItems }`,
   * typebox's draft-07 form (no maxItems unless given), typed `[A, B, ...]`.
   */
  Tuple<Types extends TSchema[]>(types: [...Types], options?: TArrayOptions): TTuple<Types> {
    return create("Tuple", { type: "array", additionalItems: false, items: types, minItems: types.length }, options);
  },

  /**
   * An object: `{ type: "object", required, properties }`. `required` lists the properties not
   * marked Optional, in property order, and is left out when empty.
   */
  Object<Properties extends TProperties>(properties: Properties, options?: TObjectOptions): TObject<Properties> {
    const required = Object.getOwnPropertyNames(properties).filter((key) => !("~optional" in properties[key]!));
    return create("Object", { type: "object", ...(required.length > 0 ? { required } : {}), properties }, options);
  },

  /**
   * An object keyed by `key`: `{ type: "object", patternProperties: { [pattern]: value } }` for
   * String (`^.*$` or its own pattern), Integer and Number keys; an Object with those required
   * properties for a Literal, Enum or Union of Literals. A Union holding an open key is `^.*$`.
   */
  Record<Key extends TRecordKey, Value extends TSchema>(key: Key, value: Value, options: TObjectOptions = {}): TRecordOf<Key, Value> {
    return update(recordOf(key, value), options) as TRecordOf<Key, Value>;
  },

  /** Marks a property optional in an Object; the schema's JSON is unchanged (the marker is hidden). */
  Optional<T extends TSchema>(type: T): TOptional<T> {
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(type)) as T;
    return hide(copy, "~optional", true) as TOptional<T>;
  },

  /** An Object with every property Optional (of each member, for a Union); the Object's own options are dropped. */
  Partial<T extends TObject | TUnion>(type: T, options: TObjectOptions = {}): TPartial<T> {
    return update(partialOf(type), options) as TPartial<T>;
  },
};

/** `Type.Static<typeof X>`, as in typebox, where `Type` is also a namespace. */
export declare namespace Type {
  type Static<T> = StaticType<T>;
}

export default Type;
