import { MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from '../../telephony/http';

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12);

  it('reads delta-seconds and HTTP dates', () => {
    expect(retryAfterSeconds('2', now)).toBe(2);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds(new Date(now + 5000).toUTCString(), now)).toBe(5);
  });

  it('bounds hostile values: absent, unreadable, negative, huge, or overlong headers', () => {
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds('-5', now)).toBeUndefined();
    expect(retryAfterSeconds(new Date(now - 5000).toUTCString(), now)).toBe(0);
    expect(retryAfterSeconds('99999999999999999999', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('1'.repeat(100), now)).toBeUndefined();
  });
});
