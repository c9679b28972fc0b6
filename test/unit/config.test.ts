import { ConfigError, parseConfig } from '../../platform/config';

describe('parseConfig', () => {
  it('applies the documented defaults, with embedded services when no addresses are given', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      PORT: 8000,
      PUBLIC_BASE_URL: 'http://localhost:8000',
      TELEPHONY_SIMULATOR: true,
      EMBEDDED_POSTGRES: true,
      EMBEDDED_TEMPORAL: true,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      DATABASE_URL: 'postgres://switchboard:switchboard@127.0.0.1:54329/switchboard',
    });
  });

  it('uses given addresses and stops embedding those services', () => {
    const config = parseConfig({ DATABASE_URL: 'postgres://u:p@db:5432/x', TEMPORAL_ADDRESS: 'temporal:7233' });
    expect(config).toMatchObject({
      EMBEDDED_POSTGRES: false,
      EMBEDDED_TEMPORAL: false,
      DATABASE_URL: 'postgres://u:p@db:5432/x',
    });
  });

  it.each([
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ])('reads the boolean %s as %s (never Boolean("false") === true)', (raw, expected) => {
    expect(parseConfig({ TELEPHONY_SIMULATOR: raw }).TELEPHONY_SIMULATOR).toBe(expected);
  });

  it('treats empty strings as unset', () => {
    expect(parseConfig({ PORT: '', TELEPHONY_SIMULATOR: '' })).toMatchObject({ PORT: 8000, TELEPHONY_SIMULATOR: true });
  });

  it('names every bad variable at once and never echoes values', () => {
    let error: unknown;
    try {
      parseConfig({ PORT: 'eighty', TELEPHONY_SIMULATOR: 'maybe', DATABASE_URL: 'not a url with secret-pw' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'DATABASE_URL', 'TELEPHONY_SIMULATOR']);
    expect(message).not.toContain('secret-pw');
  });

  it('requires external PostgreSQL and Temporal in production', () => {
    expect(() => parseConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL: required in production/);
    expect(() => parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(
      /TEMPORAL_ADDRESS: required in production/,
    );
  });
});
