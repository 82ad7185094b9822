import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../contracts';
import { applyKeywordEvidence } from './keyword-evidence';

const hit = (id: string, score: number, text: string, sessionId?: string): SearchHit => ({
  record: {
    id,
    namespace: 'user',
    tenant: '',
    text,
    attributes: { kind: 'memory' },
    payload: { metadata: sessionId ? { sessionId } : {} },
  },
  score,
});

const ids = (hits: SearchHit[]) => hits.map((h) => h.record.id);
const none = { spans: [], sessions: false, turnPriors: false };

describe('applyKeywordEvidence', () => {
  it('changes nothing with every step off', () => {
    const hits = [hit('a', 3, 'alpha'), hit('b', 2, 'beta')];
    expect(ids(applyKeywordEvidence(hits, none))).toEqual(['a', 'b']);
  });

  it('session evidence: a turn of the session that matches best overtakes a slightly better lone turn', () => {
    const hits = [hit('lone', 1.0, 'x y z'), hit('best', 1.2, 'x y z', 's1'), hit('mate', 0.98, 'x y z', 's1')];
    expect(ids(applyKeywordEvidence(hits, none))).toEqual(['best', 'lone', 'mate']);
    expect(ids(applyKeywordEvidence(hits, { ...none, sessions: true }))).toEqual(['best', 'mate', 'lone']);
  });

  it('turn priors: a question ranks below an equally matching statement; longer statements a little higher', () => {
    const hits = [
      hit('asks', 1, 'Do you still go climbing on Tuesdays?'),
      hit('answers', 1, 'I still go climbing on Tuesdays.'),
      hit('longer', 1, 'I still go climbing on Tuesdays and Thursdays with my sister after work.'),
    ];
    expect(ids(applyKeywordEvidence(hits, { ...none, turnPriors: true }))).toEqual(['longer', 'answers', 'asks']);
  });

  it('date evidence: x1.5 for memories in a named span', () => {
    const may = {
      ...hit('may', 1, 'trip'),
      record: { ...hit('may', 1, 'trip').record, attributes: { occurredAt: Date.UTC(2023, 4, 8) } },
    };
    const out = applyKeywordEvidence([hit('other', 1.4, 'trip'), may], {
      ...none,
      spans: [{ kind: 'range', start: Date.UTC(2023, 4, 1), end: Date.UTC(2023, 5, 1) }],
    });
    expect(ids(out)).toEqual(['may', 'other']);
    expect(out[0]!.score).toBeCloseTo(1.5);
  });

  it('time answers: a stated duration answers "when" as well as "how long"', () => {
    const hits = [
      hit('plain', 1.2, 'Nate: my turtles love the sun'),
      hit('duration', 1, "Nate: I've had them for 3 years now"),
    ];
    for (const timeAnswer of ['date', 'duration'] as const)
      expect(ids(applyKeywordEvidence(hits, { ...none, timeAnswer }))).toEqual(['duration', 'plain']);
    expect(ids(applyKeywordEvidence(hits, none))).toEqual(['plain', 'duration']);
  });
});
