import { describe, expect, it } from 'vitest';
import { cosineSimilarity, HashingEmbedder } from '../embedding';

// Labelled short facts (docs/decay-and-conflicts.md shows the measured values).
// The HashingEmbedder's declared conflictThreshold must keep separating them.
const CONFLICTS: [string, string][] = [
  ['The database is PostgreSQL 14', 'The database is PostgreSQL 16'],
  ['The user prefers dark mode', 'The user prefers light mode'],
  ['Deploys run on Fridays', 'Deploys run on Mondays'],
  ['The API port is 8080', 'The API port is 3000'],
  ['Use tabs for indentation', 'Use spaces for indentation'],
  ['The project uses React 18', 'The project uses React 19'],
  ['The user lives in Berlin', 'The user lives in Paris'],
  ["The user's name is Alice", "The user's name is Bob"],
  ['Node version is 20', 'Node version is 22'],
  ['The staging server runs Ubuntu 22.04', 'The staging server runs Ubuntu 24.04'],
  ['The default branch is main', 'The default branch is develop'],
  ['Tests are written with Jest', 'Tests are written with Vitest'],
  ['The team lead is Maria', 'The team lead is Jonas'],
  ['The user prefers Python', 'The user prefers TypeScript'],
  ['Releases are cut every two weeks', 'Releases are cut every month'],
  ['The frontend is hosted on Vercel', 'The frontend is hosted on Netlify'],
  ['The cache TTL is 60 seconds', 'The cache TTL is 300 seconds'],
  ['Logs are shipped to Datadog', 'Logs are shipped to Grafana Loki'],
  ['The user works at Acme Corp', 'The user works at Globex'],
  ['Answer in English', 'Answer in German'],
];
const RELATED: [string, string][] = [
  ['The database is PostgreSQL 14', 'The database backups run nightly'],
  ['The database is PostgreSQL 14', 'Use PostgreSQL for new services'],
  ['The user prefers dark mode', 'The user prefers short answers'],
  ['The project uses React 18', 'The project uses TypeScript'],
  ['Deploys run on Fridays', 'Tests run on every push'],
  ['The API port is 8080', 'The API is written in Go'],
  ['The user lives in Berlin', 'The user works in Berlin'],
  ['The default branch is main', 'Feature branches are merged with squash'],
  ['Tests are written with Jest', 'Tests must pass before merging'],
  ['The team lead is Maria', 'Maria reviews all database migrations'],
  ['The frontend is hosted on Vercel', 'The backend is hosted on AWS'],
  ['The cache TTL is 60 seconds', 'The cache is Redis'],
  ['Logs are shipped to Datadog', 'Metrics are shipped to Datadog'],
  ['The user works at Acme Corp', 'The user manages a team of five'],
  ['The database is PostgreSQL 16', 'The database runs on port 5432'],
  ['The user prefers Python', 'The user prefers concise explanations'],
];
const UNRELATED: [string, string][] = [
  ['The database is PostgreSQL 14', 'The user prefers dark mode'],
  ['The user likes cats', 'The CI pipeline uses GitHub Actions'],
  ['The database is PostgreSQL 16', 'Always answer in French'],
  ['Deploys run on Fridays', 'The user lives in Berlin'],
  ['The API port is 8080', 'The team lead is Maria'],
  ['Use tabs for indentation', 'The cache is Redis'],
];

describe('HashingEmbedder conflictThreshold', () => {
  const embedder = new HashingEmbedder();
  const threshold = embedder.conflictThreshold;
  const similarity = ([a, b]: [string, string]) => cosineSimilarity(embedder.embedOne(a), embedder.embedOne(b));
  const above = (pairs: [string, string][]) => pairs.filter((p) => similarity(p) >= threshold);

  it('flags the seed example as a conflict', () => {
    expect(similarity(['The database is PostgreSQL 14', 'The database is PostgreSQL 16'])).toBeGreaterThanOrEqual(
      threshold,
    );
  });

  it('flags most changed values, few related facts and no unrelated ones', () => {
    expect(above(UNRELATED)).toEqual([]);
    expect(above(CONFLICTS).length).toBeGreaterThanOrEqual(CONFLICTS.length * 0.6);
    expect(above(RELATED).length).toBeLessThanOrEqual(2);
  });
});
