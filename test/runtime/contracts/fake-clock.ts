// A clock the test moves by hand, for stores that read time from a `now()` option.
export interface FakeClock {
  now: () => number;
  advance(ms: number): void;
}

export function fakeClock(start: number): FakeClock {
  let time = start;
  return {
    now: () => time,
    advance(ms) {
      time += ms;
    },
  };
}
