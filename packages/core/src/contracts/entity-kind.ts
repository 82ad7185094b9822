/**
 * What an entity is. The offline extractor finds `person` (speakers, titled
 * names), `place` (a name after "in", "at", "from", "to"...), `title` (a quoted
 * name: a book, a film, a song), `name` (any other proper name) and `date`; an
 * extraction model may also say `organization`, `product`, `project` or `event`.
 */
export type EntityKind =
  | 'person'
  | 'place'
  | 'organization'
  | 'product'
  | 'project'
  | 'event'
  | 'title'
  | 'name'
  | 'date';
