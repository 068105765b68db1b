import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  test('writes exactly what toISOString writes, for random and boundary instants', () => {
    const edges = [
      0,
      1,
      999,
      1000,
      59_999,
      60_000,
      3_599_999,
      86_399_999,
      86_400_000,
      951_782_400_000,
      1_795_334_829_144,
      Date.UTC(2026, 10, 20, 10, 0, 0, 0),
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -86_400_001,
      1.5,
      8.64e15,
    ];
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const instants = [...edges, ...Array.from({ length: 200_000 }, () => Math.floor(random() * 4e12))];
    for (const ms of instants) assert.equal(isoTime(ms), new Date(ms).toISOString(), String(ms));
  });

  test('throws for a time that is not one, like toISOString', () => {
    assert.throws(() => isoTime(Number.NaN), RangeError);
  });
});
