import { McpLiteError } from '../core/errors.js';
import type { WireResource } from '../core/resources.js';
import type { CatalogRequestOptions, Client } from './client-api.js';

/**
 * Agent Skills a server serves (`io.modelcontextprotocol/skills`, docs/discovery.md), read through the client's
 * resources on any binding that has them: a skill is the `skill://<name>/SKILL.md` resource, named and described
 * by its frontmatter; its other files are resources beside it.
 */

/** A skill as a server lists it. */
export interface ListedSkill {
  /** The skill's name (the URI's authority). */
  name: string;
  /** What it is for, from its frontmatter. */
  description: string | undefined;
  /** `skill://<name>/SKILL.md`. */
  uri: string;
}

const SKILL_MD = /^skill:\/\/([a-z0-9-]{1,64})\/SKILL\.md$/;

/** The skills `client`'s server serves: its resources that are a skill's SKILL.md. */
export async function listSkills(
  client: Pick<Client, 'listResources'>,
  options?: CatalogRequestOptions,
): Promise<ListedSkill[]> {
  const resources: WireResource[] = await client.listResources(options);
  const skills: ListedSkill[] = [];
  for (const r of resources) {
    const name = SKILL_MD.exec(r.uri)?.[1];
    if (name) skills.push({ name, description: r.description, uri: r.uri });
  }
  return skills;
}

/** The text of a skill's SKILL.md (or of `path` within the skill). */
export async function readSkill(
  client: Pick<Client, 'readResource'>,
  name: string,
  path = 'SKILL.md',
  options?: CatalogRequestOptions,
): Promise<string> {
  const uri = `skill://${name}/${path}`;
  const contents = await client.readResource(uri, options);
  const text = contents.find((c) => typeof c.text === 'string')?.text;
  if (text === undefined) throw new McpLiteError('resource_not_found', `No text at ${uri}`, { uri });
  return text;
}
