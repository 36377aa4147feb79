// The shapes of GraphQL field arguments as graphql-js hands them to resolvers: enums in
// UPPER_CASE (the vocabulary's values, src/schemas/vocabulary.ts), optional arguments
// absent or null, DateTime as Date, JSON as plain values. Resolvers declare their
// argument type from these, so a field reading an argument the SDL lacks does not compile.

/** An enum argument: the vocabulary's value in UPPER_CASE. */
export type GqlEnum<T extends string> = Uppercase<T>;
/** An optional argument: left out or null. */
export type Opt<T> = T | null | undefined;

export interface IdArgs {
  id: string;
}

export interface PageArgs {
  page?: Opt<number>;
  pageSize?: Opt<number>;
}

/** A resolver of an object type's field that takes no arguments. */
export type FieldArgs = Record<never, never>;
