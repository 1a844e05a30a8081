/**
 * A stdio server's `cwd` as written in an MCP file is the workspace's folder when relative — the
 * folder the allow's fingerprint read its scripts from — never the extension host's or the
 * CLI's own working folder (which a relative path would otherwise be taken against).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { workingFolder } from '../../../src/node/mcp/mcp-connections';

describe('an MCP server working folder', () => {
  const workspace = path.resolve('/work/space');
  it('relative: inside the workspace folder; absolute: as written; none: the workspace folder', () => {
    assert.equal(workingFolder('tools', workspace), path.join(workspace, 'tools'));
    assert.equal(workingFolder('./tools/../srv', workspace), path.join(workspace, 'srv'));
    assert.equal(workingFolder(path.resolve('/opt/srv'), workspace), path.resolve('/opt/srv'));
    assert.equal(workingFolder(undefined, workspace), workspace);
    assert.equal(workingFolder('tools', undefined), 'tools');
    assert.notEqual(workingFolder('tools', workspace), path.resolve(process.cwd(), 'tools'));
  });
});
