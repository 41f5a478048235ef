/**
 * The Agent Skills of the conformance fixture (the Skills extension's server scenarios, `sep-2640-skills-*`): a
 * skill with a file in a subdirectory (so that `resources/directory/read` has a directory child to list) and a
 * second, smaller one.
 */
import type { SkillDefinition } from '../../src/index.js';

export const skills: SkillDefinition[] = [
  {
    files: [
      {
        path: 'SKILL.md',
        content: [
          '---',
          'name: pdf-processing',
          'description: Extract, fill, and assemble PDF documents',
          'license: Apache-2.0',
          'metadata:',
          '  author: mcplite',
          '  version: "1.0"',
          '---',
          '',
          '# PDF processing',
          '',
          'Fill forms as [references/FORMS.md](references/FORMS.md) says.',
          '',
        ].join('\n'),
      },
      { path: 'references/FORMS.md', content: '# Forms\n\nEvery field, then sign.\n' },
      { path: 'scripts/extract.py', content: 'print("extract")\n' },
    ],
  },
  {
    files: [
      {
        path: 'SKILL.md',
        content:
          '---\nname: git-workflow\ndescription: Branch, commit and review the way this team does\n---\n\nUse short branches.\n',
      },
    ],
  },
];
