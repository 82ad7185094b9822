import { describe, expect, it } from 'vitest';
import { AgentMemoryError } from '../errors';
import { importOptional } from './import-optional';

describe('importOptional', () => {
  it('returns the module, or says what to install when it is missing', async () => {
    const path = await importOptional(() => import('node:path'), 'unused');
    expect(typeof path.join).toBe('function');
    const missing = '@agentmem/not-installed-anywhere';
    const error = await importOptional(() => import(missing), 'run `npm i @agentmem/not-installed-anywhere`').catch((e) => e);
    expect(AgentMemoryError.hasCode(error, 'MISSING_DEPENDENCY')).toBe(true);
    expect(error.message).toBe('run `npm i @agentmem/not-installed-anywhere`');
  });
});
