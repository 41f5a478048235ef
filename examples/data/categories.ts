/**
 * Every document category and its vocabulary, keyed by category name. The key order matters: documents cycle
 * through the categories in this order, so reordering it changes the generated collection.
 */
import { FINANCE, PRODUCT } from './categories-business.js';
import { NETWORKING, OPERATIONS, SECURITY } from './categories-infrastructure.js';
import { DATABASES, MACHINE_LEARNING, PROTOCOLS } from './categories-software.js';
import type { Vocabulary } from './vocabulary.js';

/** Category name → vocabulary, in the order the generator cycles through them. */
export const CATEGORIES: Record<string, Vocabulary> = {
  protocols: PROTOCOLS,
  databases: DATABASES,
  security: SECURITY,
  'machine-learning': MACHINE_LEARNING,
  networking: NETWORKING,
  finance: FINANCE,
  operations: OPERATIONS,
  product: PRODUCT,
};
