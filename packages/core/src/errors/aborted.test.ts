import { describe, expect, it } from 'vitest';
import { abortedError } from './aborted';
import { AgentMemoryError } from './agent-memory-error';

describe('abortedError', () => {
  it('is ABORTED, says the caller cancelled it, and keeps the reason a caller gave', () => {
    const plain = new AbortController();
    plain.abort();
    const error = abortedError('Cohere embed', plain.signal);
    expect(AgentMemoryError.hasCode(error, 'ABORTED')).toBe(true);
    expect(error.message).toBe("Cohere embed was cancelled by the caller's signal.");
    expect(error.cause).toBe(plain.signal.reason);

    const withReason = new AbortController();
    withReason.abort(new Error('user closed the chat'));
    const explained = abortedError('recall', withReason.signal);
    expect(explained.message).toBe("recall was cancelled by the caller's signal (user closed the chat).");
    expect(explained.details).toEqual({ reason: 'user closed the chat' });
  });
});
