/** The part of js-yaml (ships no types) the skill frontmatter parser uses. */
declare module 'js-yaml' {
  /** A YAML schema (the tags a document may use). */
  export interface Schema {
    readonly __schema: unique symbol;
  }
  /** YAML 1.2's core schema: JSON's types plus YAML's plain scalars, no timestamps. */
  export const CORE_SCHEMA: Schema;
  /** Parses one YAML document. */
  export function load(text: string, options?: { schema?: Schema; json?: boolean }): unknown;
}
