const Finding = typed(
  Type.Object({
    file: Type.String(),
    line: { type: "integr" } as never,
  }),
);

export default defineWorkflow({
  meta: { name: "bad-schema", description: "A schema with a mistake." },
  run: () => Finding.schema,
});
