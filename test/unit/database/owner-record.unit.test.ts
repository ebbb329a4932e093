import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isServeRecord,
  ownerRecordSchema,
  publishMcpSocket,
  readOwnerRecord,
  writeOwnerRecord,
} from '../../../services/database/embedded/owner-record.js';

/**
 * The owner record of an embedded data folder gained `mcpSocket`: records written before it
 * (or by an owner that serves no MCP) must still parse, and the field appears and goes as
 * the owner's MCP socket starts and stops.
 */
const BEFORE_MCP_SOCKET = {
  pid: process.pid,
  command: 'cogitave serve',
  since: '2026-12-01T10:00:00.000Z',
  socketDirectory: '/srv/data/owner',
  port: 5432,
};

const folders: string[] = [];
const dataFolder = (): string => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cogitave-owner-record-'));
  folders.push(dataDir);
  mkdirSync(join(dataDir, 'owner'), { mode: 0o700 });
  return dataDir;
};

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('owner record', () => {
  it('given a record written before the MCP socket existed, when parsed, then it is valid and names no MCP socket', () => {
    const parsed = ownerRecordSchema.parse(BEFORE_MCP_SOCKET);
    expect(parsed.mcpSocket).toBeUndefined();
    expect(parsed.port).toBe(5432);
  });

  it('given a record naming an MCP socket, when parsed, then the path is kept', () => {
    const parsed = ownerRecordSchema.parse({
      ...BEFORE_MCP_SOCKET,
      mcpSocket: '/srv/data/owner/mcp.sock',
    });
    expect(parsed.mcpSocket).toBe('/srv/data/owner/mcp.sock');
  });

  it('given an MCP socket path that is not a string, when parsed, then the record is refused', () => {
    expect(ownerRecordSchema.safeParse({ ...BEFORE_MCP_SOCKET, mcpSocket: 5 }).success).toBe(false);
  });

  it('given an older record on disk, when read, then it is the owner (the field is optional)', () => {
    const dataDir = dataFolder();
    writeFileSync(join(dataDir, 'owner', 'owner.json'), JSON.stringify(BEFORE_MCP_SOCKET));
    const record = readOwnerRecord(dataDir);
    expect(record?.pid).toBe(process.pid);
    expect(record?.mcpSocket).toBeUndefined();
    expect(isServeRecord(record)).toBe(true);
  });

  it('given this process owns the folder, when it publishes and then withdraws its MCP socket, then the record names it and then no longer does, the rest unchanged', () => {
    const dataDir = dataFolder();
    writeOwnerRecord(dataDir, BEFORE_MCP_SOCKET);
    publishMcpSocket(dataDir, join(dataDir, 'owner', 'mcp.sock'));
    expect(readOwnerRecord(dataDir)).toEqual({
      ...BEFORE_MCP_SOCKET,
      mcpSocket: join(dataDir, 'owner', 'mcp.sock'),
    });
    publishMcpSocket(dataDir, undefined);
    const raw = JSON.parse(readFileSync(join(dataDir, 'owner', 'owner.json'), 'utf8')) as object;
    expect(raw).toEqual(BEFORE_MCP_SOCKET);
  });

  it("given another process's record, when this one publishes an MCP socket, then the record is left alone", () => {
    const dataDir = dataFolder();
    // pid 1 runs (init), so the record is a live owner's, just not this process's.
    const theirs = { ...BEFORE_MCP_SOCKET, pid: 1 };
    writeOwnerRecord(dataDir, theirs);
    publishMcpSocket(dataDir, '/somewhere/else/mcp.sock');
    expect(JSON.parse(readFileSync(join(dataDir, 'owner', 'owner.json'), 'utf8'))).toEqual(theirs);
  });

  it('given a one-shot command owns the folder, then it is not a serve record', () => {
    expect(isServeRecord({ ...BEFORE_MCP_SOCKET, command: 'cogitave ingest ./docs' })).toBe(false);
    expect(isServeRecord(undefined)).toBe(false);
  });
});
