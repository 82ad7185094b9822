import { describe, expect, it } from 'vitest';
import { assertBranchName } from './namespaces';
describe('assertBranchName follows git ref-name rules (no git run)', () => {
  it.each(['main', 'feature/login', 'wt/hostile', 'release-1.2', 'fix_ü', 'a.b/c'])('accepts %s', (name) => {
    expect(assertBranchName(name)).toBe(name);
  });
  it.each([
    '../../etc',
    'a..b',
    '/abs',
    'trail/',
    'a//b',
    '.hidden',
    'x/.y',
    'x.lock',
    'end.',
    '-rf',
    '@',
    'HEAD',
    'a@{1}',
    'has space',
    'tab\t',
    'nul\u0000',
    'a~1',
    'a^',
    'a:b',
    'glob*',
    'q?',
    'br[',
    'back\\slash',
    '',
    'x'.repeat(256),
  ])('refuses %j', (name) => {
    expect(() => assertBranchName(name)).toThrow(/Invalid branch name/);
  });
});
