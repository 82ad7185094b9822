import { describe, expect, it } from 'vitest';
import { importChat } from './import-chat';

describe('examples/conversation-import', () => {
  it('finds the answer that needs the turn before it in the top three, shows it alone, and selects by event time', async () => {
    const lines: string[] = [];
    const result = await importChat((line) => lines.push(line));
    expect(result.stored).toBe(7);
    expect(result.top).toContain('Sam: Every Tuesday and Thursday after work.');
    expect(result.block).toContain('Every Tuesday and Thursday');
    expect(result.block).not.toContain('Conversation on'); // the context is never shown
    expect(result.since.length).toBeGreaterThan(0);
    expect(result.since.every((c) => /Pixel|greyhound|sofa/.test(c))).toBe(true);
    expect(lines.join('\n')).toContain('(2025-03-04)');
  });
});
