// The Authorization header's shape (src/security/authenticate.ts bearerToken): the fast
// path for "Bearer <token>" and the general rule agree.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken } from '../src/security/authenticate.js';

describe('bearerToken', () => {
  it('takes the token of "Bearer <token>", with any case of the scheme and blanks around', () => {
    assert.equal(bearerToken('Bearer abc.def.ghi'), 'abc.def.ghi');
    assert.equal(bearerToken('bearer abc.def.ghi'), 'abc.def.ghi');
    assert.equal(bearerToken('BEARER   abc.def.ghi  '), 'abc.def.ghi');
    assert.equal(bearerToken('Bearer\tabc'), 'abc');
  });
  it('refuses other schemes, a missing token and a token with blanks inside', () => {
    for (const h of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer  ', 'Bearer a b', 'Token abc', 'Bearerabc', '']) {
      assert.equal(bearerToken(h), undefined, JSON.stringify(h));
    }
  });
});
