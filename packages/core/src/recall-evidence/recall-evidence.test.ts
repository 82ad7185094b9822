import { describe, expect, it } from 'vitest';
import { InMemoryBackend } from '../backends';
import type { BackendRecord, SearchHit } from '../contracts';
import { HashingEmbedder } from '../embedding';
import { MemoryStore } from '../store/memory-store';
import { endsInQuestion } from './conversation-turn';
import { isListQuestion } from './list-question';
import { applyReplyEvidence, REPLY_ANSWER_WEIGHT, REPLY_EVIDENCE_WEIGHT, replyWeightFor } from './reply-evidence';
import {
  applySpeakerFocus,
  FOCUS_CONFIDENCE,
  LIST_FOCUS_WEIGHT,
  LISTENER_MENTION_PENALTY,
  SPEAKER_FOCUS_WEIGHT,
} from './speaker-focus';

const turn = (id: string, text: string, metadata: Record<string, unknown>, score: number): SearchHit => ({
  record: {
    id,
    namespace: 'user',
    tenant: '',
    text,
    attributes: { kind: 'memory', status: 'active' },
    payload: { metadata },
  } as BackendRecord,
  score,
});
const order = (hits: SearchHit[]) => hits.map((h) => h.record.id);

describe('applySpeakerFocus', () => {
  const hits = [
    turn('caroline-strong', 'Caroline: I went swimming', { speaker: 'Caroline' }, 1),
    turn('caroline-weak', 'Caroline: the kids', { speaker: 'Caroline' }, 0.5),
    turn('melanie-weak', 'Melanie: the kids', { speaker: 'Melanie' }, 0.49),
    turn('note', 'a note without a speaker', {}, 0.495),
  ];

  it("lifts the named speaker's own turns above other weak matches, by a share of the best score", () => {
    const out = applySpeakerFocus(hits, "What do Melanie's kids like?");
    expect(order(out)).toEqual(['caroline-strong', 'melanie-weak', 'caroline-weak', 'note']);
    expect(out[1]!.score).toBeCloseTo(0.49 + SPEAKER_FOCUS_WEIGHT * 1);
  });

  it('leaves a strong match by someone else first (a question naming the wrong person still finds who did it)', () => {
    expect(applySpeakerFocus(hits, 'Did Melanie go swimming?')[0]!.record.id).toBe('caroline-strong');
  });

  it('favours nobody when the query names every speaker, or none', () => {
    expect(applySpeakerFocus(hits, 'What do Caroline and Melanie both like?')).toEqual(hits);
    expect(applySpeakerFocus(hits, 'Who likes the kids?')).toEqual(hits);
  });
});

describe('speaker focus: confident focus and listener mentions', () => {
  it("lowers another speaker's turn that names the person asked about: it addresses them, it is not about them", () => {
    const hits = [
      turn('address', 'Caroline: Hey Melanie! Painting is so much fun', { speaker: 'Caroline' }, 1),
      turn('other', 'Caroline: my painting class is fun', { speaker: 'Caroline' }, 0.95),
      turn('hers', 'Melanie: we paint on weekends', { speaker: 'Melanie' }, 0.5),
    ];
    const out = applySpeakerFocus(hits, 'Did Melanie paint?');
    expect(order(out)).toEqual(['other', 'address', 'hers']);
    expect(out[1]!.score).toBeCloseTo(1 - LISTENER_MENTION_PENALTY);
  });
  it("gives the list share when the person's own turn matches nearly as well as the best, and only then", () => {
    const hits = [
      turn('best', 'Caroline: I went to a concert', { speaker: 'Caroline' }, 1),
      turn('hers', 'Melanie: the concert was loud', { speaker: 'Melanie' }, FOCUS_CONFIDENCE),
      turn('hers-weak', 'Melanie: music again', { speaker: 'Melanie' }, 0.1),
    ];
    const out = applySpeakerFocus(hits, 'Which concert did Melanie attend?');
    expect(out.find((h) => h.record.id === 'hers-weak')!.score).toBeCloseTo(0.1 + LIST_FOCUS_WEIGHT);
    // Her best turn far below someone else's: the question may name the wrong person, small share.
    const wrong = applySpeakerFocus(
      hits.map((h) => (h.record.id === 'hers' ? { ...h, score: 0.5 } : h)),
      'Which concert did Melanie attend?',
    );
    expect(wrong.find((h) => h.record.id === 'hers-weak')!.score).toBeCloseTo(0.1 + SPEAKER_FOCUS_WEIGHT);
  });
  it('keeps only the small share, and no listener penalty, for a question that asks when', () => {
    const hits = [
      turn('address', 'Caroline: Hey Melanie! That was last May', { speaker: 'Caroline' }, 1),
      turn('hers', 'Melanie: the concert was loud', { speaker: 'Melanie' }, 0.95),
    ];
    const out = applySpeakerFocus(hits, 'When did Melanie go to the concert?', { asksTime: true });
    expect(out.find((h) => h.record.id === 'address')!.score).toBe(1);
    expect(out.find((h) => h.record.id === 'hers')!.score).toBeCloseTo(0.95 + SPEAKER_FOCUS_WEIGHT);
  });
});

describe('list questions', () => {
  it('reads a plural noun and its verb, "kinds of", "how many" and "what are some" as asking for a list', () => {
    for (const q of [
      'What activities does Melanie partake in?',
      'Which cities has Jon visited?',
      'What kinds of books does Nate enjoy?',
      'How many tournaments has Nate won?',
      '  WHICH Cities has Jon visited?',
      '\nhow  many cats?',
      'What are some changes Caroline has faced?',
    ])
      expect(isListQuestion(q), q).toBe(true);
    for (const q of [
      'What activity does Melanie enjoy most?',
      'What is Caroline’s job?',
      'What class does Maria take?',
      'When did Jon visit Paris?',
      'Does Gina have pets?',
      'Tell me what activities does Melanie partake in',
    ])
      expect(isListQuestion(q), q).toBe(false);
  });

  it('gives the named speaker’s turns the larger list share, which the caller can set', () => {
    const hits = [
      turn('caroline-strong', 'Caroline: I went swimming and hiking', { speaker: 'Caroline' }, 1),
      turn('caroline-other', 'Caroline: the kids loved the beach', { speaker: 'Caroline' }, 0.9),
      turn('melanie-weak', 'Melanie: pottery is like therapy', { speaker: 'Melanie' }, 0.88),
    ];
    const list = applySpeakerFocus(hits, 'What activities does Melanie partake in?');
    expect(order(list)).toEqual(['melanie-weak', 'caroline-strong', 'caroline-other']);
    expect(list[0]!.score).toBeCloseTo(0.88 + LIST_FOCUS_WEIGHT * 1);
    // A question about one thing keeps the small share: the strong match stays first.
    expect(order(applySpeakerFocus(hits, 'What activity does Melanie enjoy?'))[0]).toBe('caroline-strong');
    const off = applySpeakerFocus(hits, 'What activities does Melanie partake in?', {
      listWeight: SPEAKER_FOCUS_WEIGHT,
    });
    expect(order(off)[0]).toBe('caroline-strong');
  });
});

describe('endsInQuestion', () => {
  it('sets aside the notes a chat appends after what was said: attachments, emoji', () => {
    expect(endsInQuestion('How often do you work out?')).toBe(true);
    expect(endsInQuestion('How often do you work out? [shares a photo: a gym]')).toBe(true);
    expect(endsInQuestion('Want to come along? 😊')).toBe(true);
    expect(endsInQuestion('Did you see it? (edited) [image: a cat] 👍🏽')).toBe(true);
    expect(endsInQuestion('We work out [shares a photo: who is that?]')).toBe(false);
    expect(endsInQuestion('Is it far? I can drive.')).toBe(false);
    expect(endsInQuestion('Three times a week.')).toBe(false);
  });
});

describe('applyReplyEvidence', () => {
  it('raises the turn after a question to the score of the question, in the same session only', () => {
    const out = applyReplyEvidence([
      turn('question', 'Maria: How often do you all work out together?', { sessionId: 's1', turn: 4 }, 1),
      turn('other', 'Maria: We work out at the gym near the church.', { sessionId: 's1', turn: 9 }, 0.8),
      turn('reply', 'John: Three times a week; it keeps us on track.', { sessionId: 's1', turn: 5 }, 0.3),
      turn('elsewhere', 'John: Five, with the dog.', { sessionId: 's2', turn: 5 }, 0.2),
    ]);
    expect(order(out)).toEqual(['question', 'reply', 'other', 'elsewhere']);
    expect(out[1]!.score).toBeCloseTo(REPLY_EVIDENCE_WEIGHT * 1);
  });

  it('reads a question the chat appended a photo note or emoji to as a question, and lifts its reply', () => {
    const out = applyReplyEvidence([
      turn(
        'question',
        'Maria: Great news John! How often do you all work out? [shares a photo: a group of people at a table]',
        { sessionId: 's1', turn: 4 },
        1,
      ),
      turn('other', 'Maria: We work out at the gym near the church.', { sessionId: 's1', turn: 9 }, 0.8),
      turn('reply', 'John: Three times a week; it keeps us on track.', { sessionId: 's1', turn: 5 }, 0.3),
    ]);
    expect(order(out)).toEqual(['question', 'reply', 'other']);
  });

  it('moves nothing for memories that are not conversation turns, or a question that is not one', () => {
    const hits = [
      turn('a', 'How often?', {}, 1),
      turn('statement', 'We work out.', { sessionId: 's', turn: 1 }, 0.9),
      turn('b', 'Three times.', {}, 0.2),
      turn('next', 'Nice.', { sessionId: 's', turn: 2 }, 0.1),
    ];
    expect(applyReplyEvidence(hits)).toEqual(hits);
  });

  it('joins nothing at a place two candidates claim (two conversations both with session s1 turn 1)', () => {
    const hits = [
      turn('question', 'Ana: When is my flight?', { sessionId: 's1', turn: 0 }, 1),
      turn('real reply', 'Bot: Your flight leaves on Friday.', { sessionId: 's1', turn: 1 }, 0.2),
      turn('another call', 'Bot: Your flight is at 9.', { sessionId: 's1', turn: 1 }, 0.1),
    ];
    expect(applyReplyEvidence(hits)).toEqual(hits);
  });

  it('puts the answer to a matching chat question just above it for a question asking what or why, not when or for a list', () => {
    // The chat's question "What made you pick it?" matches the query (after the x0.8 question penalty:
    // 0.8); a turn restating the topic matches a little better (0.85); the answer matches nothing.
    const hits = [
      turn('other', 'Caroline: Researching adoption agencies has been a dream.', { sessionId: 's1', turn: 8 }, 0.85),
      turn(
        'question',
        'Melanie: Wow, that agency looks great! What made you pick it?',
        { sessionId: 's1', turn: 10 },
        0.8,
      ),
      turn('answer', "Caroline: I chose them 'cause they help LGBTQ+ folks.", { sessionId: 's1', turn: 11 }, 0.1),
    ];
    const why = 'Why did Caroline choose the adoption agency?';
    expect(replyWeightFor(why, false)).toBe(REPLY_ANSWER_WEIGHT);
    expect(order(applyReplyEvidence(hits, replyWeightFor(why, false)))).toEqual(['answer', 'other', 'question']);
    // A when question (time evidence ranks those) and a list question keep the reply level with the question.
    expect(replyWeightFor('When did Caroline choose the adoption agency?', true)).toBe(REPLY_EVIDENCE_WEIGHT);
    expect(replyWeightFor('What agencies has Caroline contacted?', false)).toBe(REPLY_EVIDENCE_WEIGHT);
    // (level with the question: the tie is broken by id)
    expect(order(applyReplyEvidence(hits, REPLY_EVIDENCE_WEIGHT))).toEqual(['other', 'answer', 'question']);
    expect(order(applyReplyEvidence(hits))).toEqual(['other', 'answer', 'question']);
  });

  it('joins a question to its reply only within one tenant and namespace', () => {
    const reply = turn('reply', 'Three times a week.', { sessionId: 's1', turn: 5 }, 0.3);
    const hits = [
      turn('question', 'How often do you work out?', { sessionId: 's1', turn: 4 }, 1),
      { ...reply, record: { ...reply.record, tenant: 'someone-else' } },
    ];
    expect(applyReplyEvidence(hits)).toEqual(hits);
  });
});

describe('recall with conversation evidence', () => {
  async function chat(options: { replyEvidence?: boolean; speakerFocus?: boolean; listFocus?: number } = {}) {
    const store = await MemoryStore.open({
      backend: new InMemoryBackend(),
      embedder: new HashingEmbedder(),
      ...options,
    });
    await store.rememberConversation(
      [
        { speaker: 'John', text: 'My family and I started going to the gym in January.' },
        { speaker: 'Maria', text: 'Great news John! How often do you all work out together?' },
        { speaker: 'John', text: 'Three times a week; it keeps us on track.' },
        { speaker: 'Maria', text: 'I should get my sister to the gym too.' },
        { speaker: 'John', text: 'The kids love the pool there.' },
      ],
      { sessionId: 's1', at: '2023-05-01T10:00:00Z', window: 0 },
    );
    await store.rememberConversation(
      [
        { speaker: 'Maria', text: 'My family and I work out together at the park sometimes.' },
        { speaker: 'John', text: 'Sounds fun, how was the picnic?' },
        { speaker: 'Maria', text: 'We work out, then eat. The park is lovely in May.' },
      ],
      { sessionId: 's2', at: '2023-05-20T10:00:00Z', window: 0 },
    );
    return store;
  }
  const contents = (results: { memory: { content: string } }[]) => results.map((r) => r.memory.content);

  it('a question about how often John works out reaches the reply to the question he was asked', async () => {
    const store = await chat();
    const query = 'How often does John work out with his family?';
    const on = contents(await store.recall(query, { k: 3, reinforce: false }));
    expect(on).toContain('John: Three times a week; it keeps us on track.');
    const off = contents(
      await store.recall(query, { k: 3, reinforce: false, replyEvidence: false, speakerFocus: false }),
    );
    expect(off).not.toContain('John: Three times a week; it keeps us on track.');
    await store.close();
  });

  it('listFocus is an option of the store and of the call, and a bad one is a clear error', async () => {
    const store = await chat();
    const query = 'How many times does John work out with his family?';
    await expect(store.recall(query, { listFocus: -1 })).rejects.toThrow(/listFocus must be a number >= 0/);
    const plain = await chat({ listFocus: 0.03 });
    const perCall = await store.recall(query, { k: 5, reinforce: false, listFocus: 0.03 });
    expect(contents(await plain.recall(query, { k: 5, reinforce: false }))).toEqual(contents(perCall));
    await plain.close();
    await store.close();
  });

  it('both are options of the store too: turned off there, recall ranks as with them off per call', async () => {
    const store = await chat();
    const plain = await chat({ replyEvidence: false, speakerFocus: false });
    const query = 'How often does John work out with his family?';
    const perCall = await store.recall(query, { k: 5, reinforce: false, replyEvidence: false, speakerFocus: false });
    expect(contents(await plain.recall(query, { k: 5, reinforce: false }))).toEqual(contents(perCall));
    await plain.close();
    await store.close();
  });
});
