// The records the QA runs write and the report reads: the sampler's lines (samples.jsonl), the
// processor's per-second trace lines (trace.jsonl), Artillery's JSON report (measured.json,
// warmup.json) and our own case.json, campaign.json, stress.json and soak.json. Types only.

/**
 * The values kept from the server's Prometheus text (sampler.js parseMetrics).
 * @typedef {object} ServerMetrics
 * @property {Record<string, number>} clients    open connections by transport
 * @property {Record<string, number>} messages   messages sent by transport
 * @property {Record<string, number>} bytes      bytes sent by transport
 * @property {number} dropped                    slow connections dropped
 * @property {number} [cpuS]
 * @property {number} [rss]
 * @property {number} [fds]
 * @property {number} [heapUsed]
 * @property {number} [heapTotal]
 * @property {number} [external]
 * @property {number} [historyDeltas]
 * @property {number} [historyBytes]
 * @property {number} [lagS]
 * @property {number} [lagMaxS]
 * @property {number} [lagP99S]
 * @property {number} [lagMeanS]
 * @property {number} [pushLagSumS]
 * @property {number} [pushLagCount]
 */

/**
 * CPU time, RSS and threads of one process, from /proc (sampler.js procStats).
 * @typedef {{ cpuMs: number, rss: number | null, threads: number | null }} ProcSample
 */

/**
 * The machine's CPU time over all cores, in ms, and its core count (sampler.js machineStats).
 * @typedef {{ busyMs: number, totalMs: number, softirqMs: number, cores: number }} MachineSample
 */

/**
 * One line of samples.jsonl.
 * @typedef {object} Sample
 * @property {number} ts       wall time (ms since the Unix epoch)
 * @property {string} phase    'idle', 'warmup', 'measured', ...
 * @property {ServerMetrics} [server]   absent when the scrape failed
 * @property {string} [scrapeError]     the error's name when it did
 * @property {number} [scrapeMs]
 * @property {ProcSample | null} [serverProc]
 * @property {ProcSample | null} [loadgen]
 * @property {MachineSample} [machine]
 * @property {{ ours: number, others: number }} [offLoopback]
 */

/**
 * One metric of the processor over one second: count, mean and quantiles in ms.
 * @typedef {{ n: number, mean: number, p50: number, p95: number, p99: number, max: number }} TraceMetric
 */

/**
 * One line of trace.jsonl: one worker thread of Artillery over one second.
 * @typedef {object} TraceLine
 * @property {number} ts
 * @property {number} [thread]
 * @property {Record<string, number>} [active]  clients open, by transport
 * @property {number} [loopMaxMs]
 * @property {number} [loopP99Ms]
 * @property {Record<string, TraceMetric>} [metrics]
 */

/**
 * The trace lines of every worker thread in one second, merged (report/load.js).
 * @typedef {object} TraceSecond
 * @property {number} ts
 * @property {Record<string, number>} active
 * @property {number} loopMaxMs
 * @property {Record<string, TraceMetric>} metrics
 */

/**
 * One of Artillery's summaries (a histogram read from its sketch), in ms.
 * @typedef {object} Summary
 * @property {number} min
 * @property {number} max
 * @property {number} count
 * @property {number} mean
 * @property {number} p50
 * @property {number} median
 * @property {number} [p75]
 * @property {number} p90
 * @property {number} p95
 * @property {number} p99
 * @property {number} [p999]
 */

/**
 * One period of Artillery's JSON report: the aggregate, or one of its 10 s intermediate periods.
 * @typedef {object} ArtilleryPeriod
 * @property {string | number} [period]  start of the period (ms since the Unix epoch)
 * @property {Record<string, number>} [counters]
 * @property {Record<string, Summary>} [summaries]
 * @property {number} [firstMetricAt]
 * @property {number} [lastMetricAt]
 */

/**
 * Artillery's JSON report (`--output`): measured.json, warmup.json.
 * @typedef {{ aggregate: ArtilleryPeriod, intermediate: ArtilleryPeriod[] }} ArtilleryReport
 */

/**
 * A budget check Artillery printed (`config.ensure`).
 * @typedef {{ ok: boolean, expression: string, strict: boolean }} Check
 */

/**
 * One Artillery run of a case.
 * @typedef {object} RunRecord
 * @property {number} users
 * @property {number} start          wall time it started
 * @property {number} [end]
 * @property {string} [plan]         what it did, in words
 * @property {number | null} exitCode
 * @property {Check[]} checks
 * @property {string} [command]
 * @property {string} [json]
 * @property {number} [warmupEnd]    soak: end of the warm-up inside the run
 * @property {number} [drainStart]   soak: when arrivals stopped
 */

/**
 * The server a run was measured against.
 * @typedef {{ url?: string, pid?: number | null, command?: string, source?: string }} ServerRecord
 */

/**
 * What the sampler's network checks saw (sampler.js stop()).
 * @typedef {object} SamplingRecord
 * @property {number} [samples]
 * @property {number} [scrapeErrors]
 * @property {{ checks: number, offLoopbackOurs: number, everyMs?: number, offLoopbackOthers?: number, oursSamples?: unknown[] }} [net]
 */

/**
 * case.json: one scenario at one number of users.
 * @typedef {object} CaseRecord
 * @property {string} scenario   ws, sse, poll, page or mixed
 * @property {number} users
 * @property {string} [kind]
 * @property {string} [startedAt]
 * @property {string} [qaCommand]  how it was run
 * @property {boolean | null} [serverAlive]  whether the server was still running at the end
 * @property {{ node?: string, artillery?: string | null, cpus?: number, memGiB?: number }} [host]
 * @property {ServerRecord} [server]
 * @property {{ measured?: RunRecord, warmup?: RunRecord }} [runs]
 * @property {SamplingRecord} [sampling]
 * @property {boolean} passed
 * @property {string[]} [broken]
 * @property {boolean} [loopbackOnly]
 */

/**
 * campaign.json: the cases of a campaign, each in its own folder.
 * @typedef {object} CampaignRecord
 * @property {string} [kind]
 * @property {string} [command]
 * @property {string} [startedAt]
 * @property {string} [finishedAt]
 * @property {number[]} [users]
 * @property {string[]} [scenarios]
 * @property {{ dir: string, scenario: string, users: number, passed: boolean, broken: string[] }[]} cases
 */

/**
 * One step of a stress run (a case folder); a step that broke a budget is run again (attempt > 0).
 * @typedef {{ users: number, attempt: number, dir: string, passed: boolean, broken: string[] }} StepRecord
 */

/**
 * stress.json.
 * @typedef {object} StressRecord
 * @property {string} transport
 * @property {string} [kind]
 * @property {string} [command]
 * @property {number} [max]
 * @property {number} [maxDurationS]
 * @property {string} [startedAt]
 * @property {string} [finishedAt]
 * @property {number[]} [flaky]  steps that broke a budget once and passed when run again
 * @property {StepRecord[]} steps
 * @property {number} [breakingPoint]
 * @property {string[]} [breakingBudgets]
 * @property {number} [lastGood]
 * @property {string} [stopped]
 */

/**
 * soak.json.
 * @typedef {object} SoakRecord
 * @property {string} [command]
 * @property {string} [plan]
 * @property {string} [startedAt]
 * @property {ServerRecord} [server]
 * @property {boolean} passed
 * @property {string[]} broken
 * @property {{ measured: RunRecord }} runs
 * @property {SoakRss} rss
 * @property {boolean} [loopbackOnly]
 * @property {SamplingRecord & { net: { checks: number, offLoopbackOurs: number } }} sampling
 */

/**
 * The soak's memory verdict (soak.js soakRssOf).
 * @typedef {object} SoakRss
 * @property {number | null} [baseline]
 * @property {number | null} [end]
 * @property {number | null} [max]
 * @property {number | null} [growthPct]
 * @property {number | null} [windowS]
 * @property {number | null} [baselineFrom]
 * @property {number | null} [historyFullAt]
 * @property {number} [historyDeltas]
 * @property {boolean} [historyFilled]
 */

export {};
