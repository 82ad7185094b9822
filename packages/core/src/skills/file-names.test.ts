import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED, generateFileNames } from '../../../../scripts/generate-file-names';

describe('file-names.generated.ts', () => {
  it('matches the installed Linguist and mime-db lists (regenerate with scripts/generate-file-names.ts)', async () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(await generateFileNames());
  });
});
