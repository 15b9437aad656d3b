"""The effect language: AST, parser, registry, checker, printer and reference docs."""
