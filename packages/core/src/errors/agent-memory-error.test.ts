import { describe, expect, it } from 'vitest';
import { AgentMemoryError } from './agent-memory-error';

describe('AgentMemoryError', () => {
  it('is recognised by code, also when it comes from another copy of the package', () => {
    const error = new AgentMemoryError('NOT_FOUND', 'No memory with id x.', { details: { id: 'x' } });
    expect(AgentMemoryError.isInstance(error)).toBe(true);
    expect(AgentMemoryError.hasCode(error, 'NOT_FOUND')).toBe(true);
    expect(AgentMemoryError.hasCode(error, 'TIMEOUT')).toBe(false);
    expect(error).toMatchObject({ name: 'AgentMemoryError', code: 'NOT_FOUND', details: { id: 'x' } });
    // A duplicate copy has its own class but marks its errors with the same registry symbol.
    class OtherCopyError extends Error {
      readonly code = 'NOT_FOUND';
      constructor() {
        super('from another copy');
        Object.defineProperty(this, Symbol.for('agentmem.error'), { value: true });
      }
    }
    expect(AgentMemoryError.isInstance(new OtherCopyError())).toBe(true);
    expect(AgentMemoryError.hasCode(new OtherCopyError(), 'NOT_FOUND')).toBe(true);
    expect(AgentMemoryError.isInstance(new Error('plain'))).toBe(false);
    expect(AgentMemoryError.isInstance({ code: 'NOT_FOUND' })).toBe(false);
  });
});
