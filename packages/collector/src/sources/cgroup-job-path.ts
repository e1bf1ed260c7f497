// The parser lives in the bridge, which the server also uses to attribute `process.cgroup` inputs.
export { type CgroupJobIdentity, jobFromCgroupPath, jobFromProcCgroup } from "@jobsight/otel-bridge";
