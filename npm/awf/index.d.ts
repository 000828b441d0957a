// index.d.ts of the npm package awf: the modules awf serves to every workflow (agentswf,
// agentswf/workflow, agentswf/testing, typebox, bun:test) and its author globals, for a project
// that names the package in its tsconfig ("types": ["awf"]) or extends awf/tsconfig.json.
/// <reference path="./typings/globals.d.ts" />
/// <reference path="./typings/agentswf.d.ts" />
/// <reference path="./typings/agentswf-testing.d.ts" />
/// <reference path="./typings/typebox.d.ts" />
/// <reference path="./typings/bun-test.d.ts" />
export {};
