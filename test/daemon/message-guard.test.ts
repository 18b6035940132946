// The id an oversized frame is answered with (message-guard.ts), found in the frame's first KiB:
// a request's id when its top-level object names an id and a method before the head ends; never
// a response's id, a nested id, or a value the head cut short.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leadingRequestId } from '../../src/daemon/message-guard.js';

const cases: [name: string, head: string, id: string | number | null][] = [
  ['vscode-jsonrpc order', '{"jsonrpc":"2.0","id":7,"method":"fathom/grep","params":{"pattern":"xxxx', 7],
  ['method first, string id', '{ "method" : "textDocument/didOpen", "id" : "a\\"b", "params": {"text": "', 'a"b'],
  ['after a whole nested value', '{"params":{"id":1,"x":[1,{"y":"}"}]},"method":"m","id":-3.5}', -3.5],
  ['a notification', '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"xxxx', null],
  ["a response (the daemon's own id)", '{"jsonrpc":"2.0","id":3,"result":{"items":[1,2,3', null],
  ['an id only inside params', '{"jsonrpc":"2.0","method":"m","params":{"id":5,"text":"xxxx', null],
  ['a number the head cut', '{"method":"m","id":12', null],
  ['a null id', '{"method":"m","id":null,"params":{', null],
  ['not an object', '[{"method":"m","id":1}]', null],
  ['not JSON', 'hello', null],
  ['a bad escape in a key', '{"\\x":1,"method":"m","id":1}', null],
];

for (const [name, head, id] of cases) {
  test(`oversized frame's id: ${name}`, () => assert.equal(leadingRequestId(head), id));
}
