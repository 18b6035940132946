; C entities for the chunker (see grammars/README.md). Object-like #defines are not entities
; (generated headers hold hundreds of thousands; naming them cost more than parsing). Patterns are not anchored to a parent:
; the chunker bounds the depth at which they start (entityDepth in manifest.json). A @name on a
; declarator is resolved to the identifier inside it (through pointer and function declarators).
(function_definition declarator: (_) @name body: (compound_statement) @body) @entity.function
(declaration declarator: [(function_declarator) (pointer_declarator declarator: [(function_declarator) (pointer_declarator declarator: (function_declarator))])] @name) @entity.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum
(type_definition type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body)] declarator: (type_identifier) @name) @entity.struct
(type_definition type: (enum_specifier body: (_) @body) declarator: (type_identifier) @name) @entity.enum
(type_definition declarator: (_) @name) @entity.type
(preproc_function_def name: (identifier) @name) @entity.macro
(translation_unit (declaration (type_qualifier) declarator: (init_declarator declarator: (_) @name)) @entity.constant)
(preproc_include) @import
