/**
 * IpList: a table of the cases people get wrong (mapped spellings, host bits, /0, /32, /128, zone ids,
 * bad entries) and a property against a BigInt model that shares no code with ip-list.ts: an address
 * is in the list exactly when some entry of its family has the same first `prefix` bits (IPv4-mapped
 * and IPv4-compatible addresses as the IPv4 they carry; an address with a port as the address). The same property catches a matcher off by one prefix bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IpList } from '../../src/index.js';

interface ListLike {
  has(ip: string): boolean;
}

/** MUTANT: every range one bit wider than written (a `<=` for a `<` in the prefix walk). */
class OffByOneBitList implements ListLike {
  readonly #inner: IpList;
  constructor(entries: readonly string[]) {
    this.#inner = new IpList(entries.map((e) => (e.includes('/') ? e.replace(/\/(\d+)$/, (_, n: string) => `/${Math.max(0, Number(n) - 1)}`) : e)));
  }
  has(ip: string): boolean {
    return this.#inner.has(ip);
  }
}

describe('IpList table', () => {
  const list = new IpList(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::ffff:172.16.0.0/108', '100.64.1.2/30']);
  it.each([
    ['10.0.0.0', true],
    ['10.255.255.255', true],
    ['11.0.0.0', false],
    ['9.255.255.255', false],
    ['::ffff:10.1.2.3', true],
    ['::FFFF:0a01:0203', true],
    ['0:0:0:0:0:ffff:10.1.2.3', true],
    ['64:ff9b::10.9.9.9', true],
    ['::10.1.2.3', true],
    ['::a01:203', true],
    ['10.1.2.3:443', true],
    ['[::ffff:10.1.2.3]:443', true],
    ['[2001:db8::1]:443', true],
    ['10.1.2.3:99999', false],
    ['2001:db8::1:443', true],
    ['::1', false],
    ['192.168.1.7', true],
    ['192.168.1.8', false],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['2001:db8::1', true],
    ['2001:DB8:ffff::1%eth0', true],
    ['2001:db9::1', false],
    ['100.64.1.0', true],
    ['100.64.1.3', true],
    ['100.64.1.4', false],
    ['unknown', false],
    ['', false],
    [undefined, false],
  ] as const)('%s is listed: %s', (ip, want) => {
    expect(list.has(ip)).toBe(want);
  });

  it('reads a range with host bits set as its network', () => {
    expect(new IpList(['10.1.2.3/8']).has('10.200.0.1')).toBe(true);
  });

  it('/0 lists every address of its family, and ::/0 the IPv4 addresses it carries too', () => {
    expect(new IpList(['0.0.0.0/0']).has('255.1.2.3')).toBe(true);
    expect(new IpList(['0.0.0.0/0']).has('2001:db8::1')).toBe(false);
    expect(new IpList(['::/0']).has('1.2.3.4')).toBe(true);
    expect(new IpList(['::/0']).has('2001:db8::1')).toBe(true);
  });

  it('an IPv4-compatible entry is the IPv4 address it carries, and ::/96 holds every IPv4 address', () => {
    expect(['1.2.3.4', '::ffff:1.2.3.4', '::102:304', '1.2.3.5'].map((ip) => new IpList(['::1.2.3.4']).has(ip))).toEqual([true, true, true, false]);
    expect(new IpList(['::/96']).has('203.0.113.9')).toBe(true);
    expect(['::1', '0.0.0.1', '::2'].map((ip) => new IpList(['::1']).has(ip))).toEqual([true, true, false]);
  });

  it('an empty list holds nothing', () => {
    expect(new IpList([]).has('1.2.3.4')).toBe(false);
  });

  it.each([['10.0.0.0/33'], ['10.0.0.0/'], ['10.0.0/8'], ['fe80::1%eth0'], ['2001:db8::/129'], ['*'], [''], [' 10.0.0.1']])('refuses %j naming the entry', (entry) => {
    expect(() => new IpList(['1.2.3.4', entry], 'rateLimit', 'allowList')).toThrow(`rateLimit: allowList[1] must be an IP address or a CIDR range`);
  });

  it('refuses a list that is not an array and an entry that is not a string', () => {
    expect(() => new IpList('10.0.0.0/8' as never, 'rateLimit', 'denyList')).toThrow(
      new TypeError('rateLimit: denyList must be an array of IP addresses or CIDR ranges, got "10.0.0.0/8"'),
    );
    expect(() => new IpList([7 as never])).toThrow('IpList: entries[0] must be');
  });

  it('answers a list of 50,000 ranges like a small one', () => {
    const entries = Array.from({ length: 50_000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.0/24`);
    const big = new IpList(entries);
    expect(big.size).toBe(50_000);
    expect(big.has('10.100.3.77')).toBe(true);
    expect(big.has('11.0.0.1')).toBe(false);
  });
});

// The model: an address as [family, BigInt], a range as [family, BigInt, prefix].
type Family = 4 | 6;
const v4 = fc
  .tuple(fc.constantFrom(10, 172, 192, 0, 255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((o) => ({ family: 4 as Family, value: o.reduce((a, b) => (a << 8n) | BigInt(b), 0n) }));
const v6 = fc.tuple(fc.constantFrom(0x2001, 0xfe80, 0), fc.constantFrom(0xdb8, 0, 1), fc.array(fc.nat(0xffff), { minLength: 6, maxLength: 6 })).map(([a, b, rest]) => ({
  family: 6 as Family,
  value: [a, b, ...rest].reduce((x, g) => (x << 16n) | BigInt(g), 0n),
}));
const address = fc.oneof(v4, v6);
const range = address.chain((a) => fc.record({ family: fc.constant(a.family), value: fc.constant(a.value), prefix: fc.integer({ min: 0, max: a.family === 4 ? 32 : 128 }) }));

/** How an IPv4 probe is written: as is, IPv4-mapped, or IPv4-compatible (but 0.0.0.1, which is then the loopback ::1). */
type Form = 'plain' | 'mapped' | 'compatible';
const render = (a: { family: Family; value: bigint }, form: Form): string => {
  if (a.family === 4) {
    const quad = [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 255n)).join('.');
    return form === 'mapped' ? `::ffff:${quad}` : form === 'compatible' && a.value !== 1n ? `::${quad}` : quad;
  }
  return Array.from({ length: 8 }, (_, i) => ((a.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
};
const inModel = (ranges: readonly { family: Family; value: bigint; prefix: number }[], a: { family: Family; value: bigint }) =>
  ranges.some((r) => {
    if (r.family !== a.family) return false;
    const shift = BigInt((a.family === 4 ? 32 : 128) - r.prefix);
    return r.value >> shift === a.value >> shift;
  });
// Leave out IPv6 ranges that hold a carrier /96 (the model keeps families apart).
const CARRIERS = [0xffffn << 32n, 0x64ff9bn << 96n, 0n];
const holdsCarrier = (r: { family: Family; value: bigint; prefix: number }) =>
  r.family === 6 && r.prefix <= 96 && CARRIERS.some((c) => r.value >> BigInt(128 - r.prefix) === c >> BigInt(128 - r.prefix));

function agrees(make: (entries: string[]) => ListLike) {
  const form = fc.constantFrom<Form>('plain', 'mapped', 'compatible');
  return fc.property(fc.array(range, { maxLength: 12 }), fc.array(address, { minLength: 1, maxLength: 12 }), form, (ranges0, probes, probeForm) => {
    const ranges = ranges0.filter((r) => !holdsCarrier(r));
    const list = make(ranges.map((r) => `${render(r, 'plain')}/${r.prefix}`));
    // Probe near the ranges too: each range's own address and its neighbour across the last prefix bit.
    const near = ranges.flatMap((r) => {
      const width = r.family === 4 ? 32 : 128;
      const flip = r.prefix === 0 ? 0n : 1n << BigInt(width - r.prefix);
      return [
        { family: r.family, value: r.value },
        { family: r.family, value: r.value ^ flip },
      ];
    });
    for (const a of [...probes, ...near]) {
      const text = render(a, probeForm);
      if (list.has(text) !== inModel(ranges, a)) throw new Error(`${text}: has ${list.has(text)}, model ${inModel(ranges, a)}`);
    }
  });
}

describe('IpList properties', () => {
  it('lists an address exactly when the model does, IPv4-mapped and IPv4-compatible spellings included', () => {
    fc.assert(
      agrees((e) => new IpList(e)),
      { numRuns: 2000 },
    );
  });

  it('catches a matcher off by one prefix bit', () => {
    expect(() =>
      fc.assert(
        agrees((e) => new OffByOneBitList(e)),
        { numRuns: 2000 },
      ),
    ).toThrow();
  });
});
