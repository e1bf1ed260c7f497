export { fakeDiagnose, renderDiagnosisMarkdown } from "./fake-diagnosis.js";
export { FAKE_MIN_JOBS, fakePredict } from "./fake-predictor.js";
export { createFakeServer, FakeJobsightServer } from "./fake-server.js";
export type { FakeFailure, FakeServerOptions, RecordedRequest } from "./fake-server-options.js";
export { FakeStore } from "./fake-store.js";
