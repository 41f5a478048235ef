/**
 * The MCP-lite gRPC binding: conversion between JSON values and google.protobuf.Struct.
 */
import { describe, expect, it } from 'vitest';
import { fromStruct, toStruct } from './struct.js';

describe('struct conversion', () => {
  it('round-trips JSON objects: nesting, lists, null, booleans, numbers, a "__proto__" key', () => {
    const value = {
      a: 1,
      b: -2.5,
      c: 'x',
      d: true,
      e: null,
      f: [1, [2, { g: [] }], null],
      h: { i: { j: {} } },
    };
    expect(fromStruct(toStruct(value))).toEqual(value);
    // JSON.parse makes "__proto__" an own key; an object literal would set the prototype instead.
    const proto = fromStruct({
      fields: JSON.parse('{"__proto__":{"stringValue":"p","kind":"stringValue"}}'),
    });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });

  it('reads Values without the oneof "kind" and in snake_case', () => {
    expect(fromStruct({ fields: { a: { numberValue: 3 }, b: { string_value: 's' } as any, c: {} } })).toEqual(
      {
        a: 3,
        b: 's',
        c: null,
      },
    );
  });
});
