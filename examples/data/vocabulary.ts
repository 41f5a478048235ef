/** The shape of a category's vocabulary, and the words every category shares: teams, companies, authors. */

/** What makes a category sound like itself. */
export interface Vocabulary {
  topics: string[];
  systems: string[];
  metrics: string[];
  problems: string[];
  practices: string[];
  titles: string[];
  sentences: string[];
}

/** Who did the work, for {team} slots. */
export const TEAMS = [
  'the platform team',
  'the payments team',
  'the search team',
  'the data engineering group',
  'the infrastructure team',
  'the mobile team',
  'the developer experience group',
  'the reliability team',
  'the analytics team',
  'the identity team',
  'a small working group',
  'the core services team',
];

/** Company names, for {company} slots. */
export const COMPANIES = [
  'Northwind',
  'Acme Logistics',
  'Globex',
  'Initech',
  'Umbrella Health',
  'Hooli',
  'Vandelay Imports',
  'Stark Retail',
];

/** Document authors and the categories they usually write about. */
export const AUTHORS: Array<{ name: string; beats: string[] }> = [
  { name: 'Amara Okafor', beats: ['protocols', 'networking'] },
  { name: 'Bjorn Lindqvist', beats: ['databases', 'operations'] },
  { name: 'Chen Wei', beats: ['machine-learning', 'databases'] },
  { name: 'Daniela Ruiz', beats: ['security', 'protocols'] },
  { name: 'Emeka Nwosu', beats: ['finance', 'product'] },
  { name: 'Farah Haddad', beats: ['product', 'machine-learning'] },
  { name: 'Gustavo Pereira', beats: ['networking', 'operations'] },
  { name: 'Hana Suzuki', beats: ['machine-learning'] },
  { name: 'Ines Carvalho', beats: ['finance'] },
  { name: 'Jonas Becker', beats: ['security', 'networking'] },
  { name: 'Kavya Iyer', beats: ['databases', 'machine-learning'] },
  { name: "Liam O'Connor", beats: ['operations', 'security'] },
  { name: 'Mei Lin', beats: ['protocols', 'product'] },
  { name: 'Nikolai Petrov', beats: ['databases', 'networking'] },
  { name: 'Olivia Bennett', beats: ['product', 'finance'] },
  { name: 'Priya Raman', beats: ['protocols', 'machine-learning'] },
  { name: 'Quentin Moreau', beats: ['finance', 'operations'] },
  { name: 'Rosa Jimenez', beats: ['security'] },
  { name: 'Samuel Adeyemi', beats: ['operations', 'networking'] },
  { name: 'Tomasz Nowak', beats: ['protocols', 'databases'] },
  { name: 'Yara Haddad', beats: ['product'] },
  { name: 'Zoe Fischer', beats: ['machine-learning', 'security'] },
];
