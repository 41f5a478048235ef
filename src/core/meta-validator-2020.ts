/**
 * ajv's validator of the JSON Schema 2020-12 meta-schema, precompiled. In the source there is none: the build
 * (`scripts/build-meta-validator.mjs`) replaces this module in dist/ with ajv's standalone code for that
 * meta-schema, so that a server does not compile it at every start. Where it is absent (tests run from source),
 * ajv compiles the meta-schema itself, as before; either way the same errors are reported.
 */

/** A validator as ajv's standalone code makes it: the result, and the errors of the last call on `errors`. */
export interface PrecompiledValidator {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

/** The precompiled meta-schema validator, or undefined when running from source. */
export const precompiledMeta2020: PrecompiledValidator | undefined = undefined;
