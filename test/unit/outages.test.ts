import { isDatabaseOutage, isTemporalOutage } from '../../api/outages';

describe('outage classification (by code, never by message)', () => {
  it('recognizes PostgreSQL connection failures, also when wrapped', () => {
    expect(isDatabaseOutage(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseOutage({ name: 'QueryFailedError', driverError: { code: '57P01' } })).toBe(true);
    expect(isDatabaseOutage({ driverError: { code: '08006' } })).toBe(true);
    expect(isDatabaseOutage({ driverError: { code: '23505' } })).toBe(false);
    expect(isDatabaseOutage(new Error('connection refused'))).toBe(false);
  });

  it('recognizes an unavailable Temporal frontend', () => {
    const grpc = Object.assign(new Error('14 UNAVAILABLE'), { code: 14, metadata: {} });
    expect(isTemporalOutage(Object.assign(new Error('svc'), { name: 'ServiceError', cause: grpc }))).toBe(true);
    expect(isTemporalOutage(grpc)).toBe(true);
    const notFound = Object.assign(new Error('5 NOT_FOUND'), { code: 5, metadata: {} });
    expect(isTemporalOutage(Object.assign(new Error('svc'), { name: 'ServiceError', cause: notFound }))).toBe(false);
  });
});
