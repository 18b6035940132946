; C++ entities for the chunker (see grammars/README.md). Patterns are not anchored to a parent:
; the chunker bounds the depth at which they start (entityDepth in manifest.json). A @name on a
; declarator is resolved to the name inside it (`*make()` → make, `OrderBook::cancel(…)` →
; OrderBook::cancel). A template's entity is the template_declaration, so its doc comment (above
; `template`) and its parameters belong to it.
(template_declaration (function_definition declarator: (_) @name body: (compound_statement) @body)) @entity.function
(template_declaration [(class_specifier name: (_) @name body: (_) @body) (struct_specifier name: (_) @name body: (_) @body)]) @entity.class
(field_declaration_list (function_definition declarator: (_) @name body: (compound_statement) @body) @entity.method)
(field_declaration_list (field_declaration declarator: (function_declarator) @name) @entity.method)
(field_declaration_list (declaration declarator: (function_declarator) @name) @entity.method)
(function_definition declarator: (_) @name body: (compound_statement) @body) @entity.function
(declaration declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator)) (reference_declarator (function_declarator))] @name) @entity.function
(namespace_definition name: (_) @name body: (declaration_list) @body) @entity.namespace
(class_specifier name: (_) @name body: (field_declaration_list) @body) @entity.class
(struct_specifier name: (_) @name body: (field_declaration_list) @body) @entity.struct
(union_specifier name: (_) @name body: (field_declaration_list) @body) @entity.struct
(enum_specifier name: (_) @name body: (enumerator_list) @body) @entity.enum
(type_definition declarator: (_) @name) @entity.type
(alias_declaration name: (type_identifier) @name) @entity.type
(preproc_function_def name: (identifier) @name) @entity.macro
(translation_unit (declaration (type_qualifier) declarator: (init_declarator declarator: (_) @name)) @entity.constant)
(namespace_definition body: (declaration_list (declaration (type_qualifier) declarator: (init_declarator declarator: (_) @name)) @entity.constant))
(preproc_include) @import
(using_declaration) @import
