/**
 * The benchmarks' workflow bundle: the production workflows and the no-op baselines the
 * benchmarks (and a few tests) compare against, which production workers never load.
 */
export * from '../../workflows';
export { noopParentWorkflow, noopWorkflow } from './noop.workflow';
