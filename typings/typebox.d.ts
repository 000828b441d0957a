// Editor typings for awf's built-in `typebox` module (js/typebox.ts): the `Type` builder, its
// schema types and `Static`, declared as the npm package `typebox` 1.x declares them for the
// builders awf supports. `Type` is a namespace, so `Type.String()` and `Type.Static<typeof X>`
// both work. `Static` of a value from awf's `typed(...)` is read from its `~awf.static` hook.

declare module "typebox" {
  // -------------------------------------------------------------------------------------------
  // Schema types: what each builder returns. `~kind` and `~optional` exist at run time, hidden.
  // -------------------------------------------------------------------------------------------

  /** Anything a builder returns, or a value awf's `typed(...)` wraps. */
  export type TSchema = object;

  /** Keywords every schema takes; any other key passes into the schema unchanged, as in typebox. */
  export interface TSchemaOptions {
    [keyword: string]: unknown;
    /** The JSON Schema dialect this schema follows. */
    $schema?: string;
    /** A URI identifying the schema. */
    $id?: string;
    /** A short name for the value. */
    title?: string;
    /** What the value is for; agents read it. */
    description?: string;
    /** The value used when none is given. */
    default?: unknown;
    /** Example values. */
    examples?: unknown;
    readOnly?: boolean;
    writeOnly?: boolean;
  }
  export interface TStringOptions extends TSchemaOptions {
    minLength?: number;
    maxLength?: number;
    /** An ECMA-262 regular expression, as a string. */
    pattern?: string;
    /** A format name such as "date-time", "email", "uri", "uuid". */
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
    /** `false` refuses properties not listed; a schema constrains them. */
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
  type TStringKey = "^.*$";
  type TIntegerKey = "^-?(?:0|[1-9][0-9]*)$";
  type TNumberKey = "^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$";

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

  // -------------------------------------------------------------------------------------------
  // Static types: the TypeScript type of the data a schema accepts.
  // -------------------------------------------------------------------------------------------

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

  // -------------------------------------------------------------------------------------------
  // The builder.
  // -------------------------------------------------------------------------------------------

  export namespace Type {
    /** `Type.Static<typeof X>`: the type of the data schema `X` accepts. */
    type Static<T> = StaticType<T>;

    /** Any value: `{}`. */
    function Any(options?: TSchemaOptions): TAny;

    /** Any value, typed `unknown`: `{}`. */
    function Unknown(options?: TSchemaOptions): TUnknown;

    /** `null`: `{ type: "null" }`. */
    function Null(options?: TSchemaOptions): TNull;

    /** `true` or `false`: `{ type: "boolean" }`. */
    function Boolean(options?: TSchemaOptions): TBoolean;

    /** A string: `{ type: "string" }` plus minLength, maxLength, pattern, format. */
    function String(options?: TStringOptions): TString;

    /** A number: `{ type: "number" }` plus minimum, maximum, exclusive bounds, multipleOf. */
    function Number(options?: TNumberOptions): TNumber;

    /** A whole number: `{ type: "integer" }`, typed `number`. */
    function Integer(options?: TNumberOptions): TInteger;

    /** Exactly one value: `{ type, const }`, typed as that literal. */
    function Literal<V extends TLiteralValue>(value: V, options?: TSchemaOptions): TLiteral<V>;

    /**
     * One of a list of strings or numbers: `{ enum: [...] }`, typed as their union. Also takes an
     * enum-like object, whose values are used and numeric reverse-mapping keys skipped.
     */
    function Enum<const V extends TEnumValue>(values: readonly V[] | { readonly [name: string]: V }, options?: TSchemaOptions): TEnum<V>;

    /** Any of the given schemas: `{ anyOf: [...] }`, typed as their union. */
    function Union<Types extends TSchema[]>(anyOf: [...Types], options?: TSchemaOptions): TUnion<Types>;

    /** A list of one schema: `{ type: "array", items }`, typed `T[]`. */
    function Array<Items extends TSchema>(items: Items, options?: TArrayOptions): TArray<Items>;

    /**
     * A fixed-length list: `{ type: "array", additionalItems: false, items: [...], minItems }`,
     * typebox's draft-07 form (no maxItems unless given), typed `[A, B, ...]`.
     */
    function Tuple<Types extends TSchema[]>(types: [...Types], options?: TArrayOptions): TTuple<Types>;

    /**
     * An object: `{ type: "object", required, properties }`. `required` lists the properties not
     * marked Optional, in property order, and is left out when empty.
     */
    function Object<Properties extends TProperties>(properties: Properties, options?: TObjectOptions): TObject<Properties>;

    /**
     * An object keyed by `key`: `{ type: "object", patternProperties: { [pattern]: value } }` for
     * String (`^.*$` or its own pattern), Integer and Number keys; an Object with those required
     * properties for a Literal, Enum or Union of Literals. A Union holding an open key is `^.*$`.
     */
    function Record<Key extends TRecordKey, Value extends TSchema>(key: Key, value: Value, options?: TObjectOptions): TRecordOf<Key, Value>;

    /** Marks a property optional in an Object; the schema's JSON is unchanged (the marker is hidden). */
    function Optional<T extends TSchema>(type: T): TOptional<T>;

    /** An Object with every property Optional (of each member, for a Union); the Object's own options are dropped. */
    function Partial<T extends TObject | TUnion>(type: T, options?: TObjectOptions): TPartial<T>;
  }

  export default Type;
}

// `typebox/value`: the value operations of npm `typebox` 1.x, for the schemas `Type` builds.
declare module "typebox/value" {
  import type { Static, TSchema } from "typebox";

  /** One reason a value does not match: the keyword, where in the schema and the value, why. */
  export interface ValueError {
    /** The JSON Schema keyword that failed: "type", "required", "minLength", "anyOf", ... */
    keyword: string;
    /** Where in the schema, as a JSON Pointer fragment: "#/properties/line". */
    schemaPath: string;
    /** Where in the value, as a JSON Pointer: "/items/2/line" ("" for the value itself). */
    instancePath: string;
    /** The keyword's particulars: `{ limit: 1 }`, `{ requiredProperties: ["file"] }`, ... */
    params: Record<string, unknown>;
    /** typebox's English sentence: "must be >= 1". */
    message: string;
  }

  /** Thrown by `Parse`; `cause.errors` holds the first error, as typebox's does. */
  export class ParseError extends Error {
    readonly cause: { source: "Parse"; errors: ValueError[]; value: unknown };
  }

  /** Thrown by `Create` for a schema that needs a `default` (a pattern, a format, uniqueItems). */
  export class CreateError extends Error {
    readonly schema: unknown;
  }

  /** Whether `value` matches `schema`; narrows `value` to the schema's static type. */
  export function Check<T extends TSchema>(schema: T, value: unknown): value is Static<T>;
  /** Why `value` does not match `schema`: at most eight errors, empty when it matches. */
  export function Errors(schema: TSchema, value: unknown): ValueError[];
  /** Fills in `default` annotations where the value is undefined; changes `value` and returns it. */
  export function Default(schema: TSchema, value: unknown): unknown;
  /** Removes properties and tuple items the schema does not describe; changes `value` and returns it. */
  export function Clean(schema: TSchema, value: unknown): unknown;
  /** Coerces scalars where it can ("42" to 42, "true" to true); changes `value` and returns it. */
  export function Convert(schema: TSchema, value: unknown): unknown;
  /** The simplest value the schema accepts, or its `default`. */
  export function Create<T extends TSchema>(schema: T): Static<T>;
  /** `value` when it matches; otherwise throws a ParseError. */
  export function Parse<T extends TSchema>(schema: T, value: unknown): Static<T>;

  /** The same functions as one object: `Value.Check(schema, value)`. */
  export const Value: {
    Check: typeof Check;
    Errors: typeof Errors;
    Default: typeof Default;
    Clean: typeof Clean;
    Convert: typeof Convert;
    Create: typeof Create;
    Parse: typeof Parse;
  };
  export default Value;
}
