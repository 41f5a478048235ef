/**
 * The discovery documents' schemas, read from the verbatim copies in test/fixtures/discovery-spec (README.md there
 * names each file's source and commit; `MCPLITE_DISCOVERY_SPEC` points elsewhere): the Server Card's published JSON Schema (a card is checked against
 * `#/$defs/ServerCard`, as the card repository's own example check does), and the AI Catalog's rules (the catalog
 * specification publishes prose, not a schema: `specVersion` "Major.Minor", `entries`, each an `identifier`, a
 * `type` and exactly one of `url` / `data`) written as a schema whose inline cards are checked as cards.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Where the spec copies are. */
export const DISCOVERY_SPEC =
  process.env.MCPLITE_DISCOVERY_SPEC ?? fileURLToPath(new URL('../fixtures/discovery-spec', import.meta.url));

const ajv = new Ajv2020({ strict: false, allErrors: true });
const addFormats = ((addFormatsModule as { default?: unknown }).default ?? addFormatsModule) as (
  a: unknown,
) => void;
addFormats(ajv);
ajv.addSchema(
  JSON.parse(readFileSync(join(DISCOVERY_SPEC, 'server-card/schema.json'), 'utf8')),
  'server-card',
);

const cardValidator = ajv.getSchema('server-card#/$defs/ServerCard')!;
const catalogValidator = ajv.compile({
  type: 'object',
  required: ['specVersion', 'entries'],
  properties: {
    specVersion: { type: 'string', pattern: '^\\d+\\.\\d+$' },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['identifier', 'type'],
        properties: {
          identifier: { type: 'string', minLength: 1 },
          type: { type: 'string', minLength: 1 },
          url: { type: 'string', format: 'uri' },
          data: { type: 'object' },
        },
        oneOf: [
          { required: ['url'] },
          {
            required: ['data'],
            // Inline data of the card type is a card.
            anyOf: [
              { not: { properties: { type: { const: 'application/mcp-server-card+json' } } } },
              { properties: { data: { $ref: 'server-card#/$defs/ServerCard' } } },
            ],
          },
        ],
      },
    },
  },
});

/** The schema errors of a Server Card (empty when valid). */
export function cardErrors(card: unknown): string[] {
  return cardValidator(card) ? [] : (cardValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** The errors of an AI Catalog (empty when valid). */
export function catalogErrors(catalog: unknown): string[] {
  return catalogValidator(catalog)
    ? []
    : (catalogValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** The registry's server.json schema (draft-07), compiled apart from the 2020-12 ones above. */
const registry = new Ajv({ strict: false, allErrors: true });
addFormats(registry);
const serverJsonValidator = registry.compile(
  JSON.parse(readFileSync(join(DISCOVERY_SPEC, 'registry-server-json/server.schema.json'), 'utf8')),
);

/** The errors of a registry server.json (empty when valid). */
export function serverJsonErrors(document: unknown): string[] {
  return serverJsonValidator(document)
    ? []
    : (serverJsonValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
