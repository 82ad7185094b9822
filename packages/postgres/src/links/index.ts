export { LINKS_MIGRATION, linksTable } from './links-migration';
export { encodeLinks, linked, linkKeys, readLinks, withLinks, writeLinks } from './links-sql';
