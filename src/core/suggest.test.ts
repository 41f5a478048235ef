import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from './suggest.js';

describe('did-you-mean suggestions', () => {
  it('measures edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests the closest tool for a typo, a prefix or a missing word', () => {
    const tools = ['redeem', 'search_documents', 'analyze_dataset'];
    expect(closestName('serch_documents', tools)).toBe('search_documents');
    expect(closestName('search', tools)).toBe('search_documents');
    expect(closestName('ANALYZE_DATASET', tools)).toBe('analyze_dataset');
  });

  it('suggests nothing when nothing is close', () => {
    expect(closestName('nonexistent_tool', ['redeem', 'echo'])).toBeUndefined();
    expect(closestName('x', [])).toBeUndefined();
  });
});
