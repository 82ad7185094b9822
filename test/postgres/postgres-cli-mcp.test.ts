import { describe, inject } from 'vitest';
import { cliMcpCases } from './cli-mcp-cases';

describe('CLI and MCP server on a postgres:// store (PGlite)', () => cliMcpCases(() => inject('pgliteUrl')));
