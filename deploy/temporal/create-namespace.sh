#!/bin/sh
# One-shot bootstrap job for the Switchboard compose stack, run in the temporalio/admin-tools image
# (Alpine, busybox sh: keep this POSIX, no bash-isms).
#
#   1. waits until the Temporal frontend answers `temporal operator cluster health`;
#   2. creates the namespace if `temporal operator namespace describe` says it is missing;
#   3. registers Switchboard's custom search attributes, treating "already exists" as success.
#
# Safe to re-run on every `docker compose up`.
#
# Environment (all optional):
#   TEMPORAL_ADDRESS        frontend gRPC address            (default temporal:7233)
#   DEFAULT_NAMESPACE       namespace to create              (default default)
#   NAMESPACE_RETENTION     retention for closed workflows   (default 168h, i.e. 7 days)
#   HEALTH_MAX_ATTEMPTS     cluster-health polls, 2 s apart  (default 60)
#   SA_MAX_ATTEMPTS         tries per search attribute       (default 15)
#   SETTLE_SECONDS          pause after creating anything, so every frontend's namespace and
#                           search-attribute caches have refreshed before the app starts (default 15)
set -eu

TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NAMESPACE="${DEFAULT_NAMESPACE:-default}"
RETENTION="${NAMESPACE_RETENTION:-168h}"
HEALTH_MAX_ATTEMPTS="${HEALTH_MAX_ATTEMPTS:-60}"
SA_MAX_ATTEMPTS="${SA_MAX_ATTEMPTS:-15}"
SETTLE_SECONDS="${SETTLE_SECONDS:-15}"

# Custom search attributes: "Name:Type" pairs. Types are the CLI's names
# (Text, Keyword, Int, Double, Bool, Datetime, KeywordList).
# Note: SQL visibility has a fixed number of columns per type per namespace (3 Int in the base schema),
# so these three Int attributes use all of them.
SEARCH_ATTRIBUTES="CampaignId:Int OrganizationId:Int AgentId:Int CampaignState:Keyword CallStatus:Keyword Disposition:Keyword"

created_something=0

log() {
  echo "[create-namespace] $*"
}

log "waiting for Temporal at ${TEMPORAL_ADDRESS} to report healthy"
attempt=1
until temporal operator cluster health --address "${TEMPORAL_ADDRESS}" >/dev/null 2>&1; do
  if [ "${attempt}" -ge "${HEALTH_MAX_ATTEMPTS}" ]; then
    log "Temporal did not become healthy after ${attempt} attempts" >&2
    # Show the real error once before giving up (restart: on-failure will run us again).
    temporal operator cluster health --address "${TEMPORAL_ADDRESS}" || true
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep 2
done
log "Temporal is healthy"

if temporal operator namespace describe --address "${TEMPORAL_ADDRESS}" --namespace "${NAMESPACE}" >/dev/null 2>&1; then
  log "namespace '${NAMESPACE}' already exists"
else
  log "creating namespace '${NAMESPACE}' (retention ${RETENTION})"
  if out="$(temporal operator namespace create --address "${TEMPORAL_ADDRESS}" \
    --namespace "${NAMESPACE}" --retention "${RETENTION}" 2>&1)"; then
    created_something=1
    log "namespace '${NAMESPACE}' created"
  else
    case "${out}" in
      *[Aa]"lready exists"* | *[Aa]"lready registered"*)
        log "namespace '${NAMESPACE}' was created concurrently" ;;
      *)
        echo "${out}" >&2
        exit 1 ;;
    esac
  fi
fi

# A namespace created a moment ago can be reported as "not found" until the namespace registry refreshes
# (about 10 s), so each attribute is retried before the job gives up.
existing_attributes="$(temporal operator search-attribute list --address "${TEMPORAL_ADDRESS}" \
  --namespace "${NAMESPACE}" --output json 2>/dev/null || true)"

ensure_search_attribute() {
  name="$1"
  type="$2"
  case "${existing_attributes}" in
    *"\"${name}\""*)
      log "search attribute ${name} already exists"
      return 0 ;;
  esac
  try=1
  while :; do
    if out="$(temporal operator search-attribute create --address "${TEMPORAL_ADDRESS}" \
      --namespace "${NAMESPACE}" --name "${name}" --type "${type}" 2>&1)"; then
      created_something=1
      log "search attribute ${name} (${type}) registered"
      return 0
    fi
    case "${out}" in
      *[Aa]"lready exists"*)
        log "search attribute ${name} already exists"
        return 0 ;;
    esac
    if [ "${try}" -ge "${SA_MAX_ATTEMPTS}" ]; then
      log "could not register search attribute ${name} (${type}) after ${try} attempts:" >&2
      echo "${out}" >&2
      return 1
    fi
    log "search attribute ${name} not registered yet (attempt ${try}/${SA_MAX_ATTEMPTS}), retrying"
    try=$((try + 1))
    sleep 2
  done
}

for pair in ${SEARCH_ATTRIBUTES}; do
  ensure_search_attribute "${pair%%:*}" "${pair#*:}"
done

if [ "${created_something}" -eq 1 ] && [ "${SETTLE_SECONDS}" -gt 0 ]; then
  log "waiting ${SETTLE_SECONDS}s for namespace/search-attribute caches to refresh"
  sleep "${SETTLE_SECONDS}"
fi

log "custom search attributes of namespace '${NAMESPACE}':"
temporal operator search-attribute list --address "${TEMPORAL_ADDRESS}" --namespace "${NAMESPACE}" || true

log "done"
