import { describe, expect, it } from 'vitest';
import { showEntities } from './entities';

describe('examples/entities', () => {
  it('lists the entities, reaches the memories of one, and answers a when-question with the turn that says when', async () => {
    const lines: string[] = [];
    const result = await showEntities((line) => lines.push(line));
    expect(result.entities).toEqual(expect.arrayContaining(['Jean', 'Maria', 'John', 'Hope', 'The Hobbit', 'Lisbon']));
    expect([...result.jean].sort()).toEqual(
      [
        'Maria: I dropped off soup at the Hope shelter with Jean yesterday.',
        'Maria: Jean loves that book, she reads it every winter.',
      ].sort(),
    );
    expect(result.neighbours).toEqual(expect.arrayContaining(['Maria (2)', 'Hope (1)']));
    expect(result.when[0]?.content).toBe('Maria: I dropped off soup at the Hope shelter with Jean yesterday.');
    expect(result.when[0]?.dates).toEqual(['yesterday = 13 March 2025']);
    expect(lines.join('\n')).toContain('Memories of Jean:');
  });
});
