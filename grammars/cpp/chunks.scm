; C++ entities for the chunker (see grammars/README.md).
; Generated shapes: a function's name sits inside its declarator, possibly under
; pointer (`int *f(void)`, `char **f(void)`) and reference (`T& f()`) declarators.
; Outside a class body, the definitions that are entities are those directly in a
; file, a namespace / extern block, or a preprocessor conditional (header guards).

; ---- functions
(translation_unit
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_if
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_ifdef
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_else
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(preproc_elif
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(linkage_specification
  (function_definition
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.function)

(translation_unit
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(preproc_if
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(preproc_ifdef
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(preproc_else
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(preproc_elif
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(linkage_specification
  (function_definition
    declarator: [
      (function_declarator declarator: (qualified_identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
      (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
    ]
    body: (compound_statement) @body) @entity.method)

; Prototypes at namespace / file scope.
(translation_unit
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_if
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_ifdef
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_else
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(preproc_elif
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

(linkage_specification
  (declaration
    declarator: [
      (function_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
      (reference_declarator (function_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
    ]) @entity.function)

; Template functions: the template_declaration is the entity (the doc comment is above `template`).
(translation_unit
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(preproc_if
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(preproc_ifdef
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(preproc_else
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(preproc_elif
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(declaration_list
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
        (reference_declarator (function_declarator declarator: (identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.function)

(translation_unit
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

(preproc_if
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

(preproc_ifdef
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

(preproc_else
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

(preproc_elif
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

(declaration_list
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: (qualified_identifier) @name)
        (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name)))
        (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: (qualified_identifier) @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

; ---- methods inside a class body (definitions, declarations, `= default` / `= 0`)
(field_declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
    ]
    body: (compound_statement) @body) @entity.method)

(field_declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
    ]
    !body) @entity.method)

(field_declaration_list
  (field_declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
    ]) @entity.method)

(field_declaration_list
  (declaration
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)
      (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
      (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
    ]) @entity.method)

(field_declaration_list
  (template_declaration
    (function_definition
      declarator: [
        (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)
        (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
        (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
        (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name))
        (pointer_declarator declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name) (qualified_identifier) (template_function) (operator_cast)] @name)))
      ]
      body: (compound_statement) @body)) @entity.method)

; ---- structs, unions, enums, classes (with a body)
[
  (translation_unit (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (preproc_if (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (preproc_ifdef (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (preproc_else (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (preproc_elif (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (declaration_list (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (declaration (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (field_declaration (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
  (compound_statement (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.class)
]

; template <...> class X {...}
(template_declaration
  (class_specifier name: (type_identifier) @name body: (field_declaration_list) @body)) @entity.class

[
  (translation_unit (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_if (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_ifdef (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_else (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_elif (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration_list (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (field_declaration (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (compound_statement (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
]

; template <...> struct X {...}
(template_declaration
  (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body)) @entity.struct

[
  (translation_unit (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_if (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_ifdef (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_else (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (preproc_elif (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration_list (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (declaration (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (field_declaration (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
  (compound_statement (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @entity.struct)
]

; template <...> union X {...}
(template_declaration
  (union_specifier name: (type_identifier) @name body: (field_declaration_list) @body)) @entity.struct

[
  (translation_unit (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_if (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_ifdef (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_else (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (preproc_elif (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (declaration_list (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (declaration (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (field_declaration (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
  (compound_statement (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @entity.enum)
]

; template <...> enum X {...}
(template_declaration
  (enum_specifier name: (type_identifier) @name body: (enumerator_list) @body)) @entity.enum

; typedef struct [tag] {...} name_t; is one entity named by the typedef name.
(type_definition
  type: (struct_specifier body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @entity.struct

(type_definition
  type: (union_specifier body: (field_declaration_list) @body)
  declarator: (type_identifier) @name) @entity.struct

(type_definition
  type: (enum_specifier body: (enumerator_list) @body)
  declarator: (type_identifier) @name) @entity.enum

; Other typedefs: plain, pointer and function-pointer types.
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (struct_specifier !body) (union_specifier !body) (enum_specifier !body) (qualified_identifier) (template_type) (class_specifier !body)]
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
    (function_declarator declarator: (type_identifier) @name)
  ]) @entity.type

[
  (translation_unit (alias_declaration name: (type_identifier) @name) @entity.type)
  (preproc_if (alias_declaration name: (type_identifier) @name) @entity.type)
  (preproc_ifdef (alias_declaration name: (type_identifier) @name) @entity.type)
  (preproc_else (alias_declaration name: (type_identifier) @name) @entity.type)
  (preproc_elif (alias_declaration name: (type_identifier) @name) @entity.type)
  (declaration_list (alias_declaration name: (type_identifier) @name) @entity.type)
  (field_declaration_list (alias_declaration name: (type_identifier) @name) @entity.type)
  (compound_statement (alias_declaration name: (type_identifier) @name) @entity.type)
]

(template_declaration
  (alias_declaration name: (type_identifier) @name)) @entity.type

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name
  body: (declaration_list) @body) @entity.namespace

(concept_definition
  name: (identifier) @name) @entity.type

; ---- constants: const/constexpr-qualified variables at file or namespace scope, object-like #defines
(translation_unit
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_if
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_ifdef
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_else
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_elif
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(declaration_list
  (declaration
    (type_qualifier ["const" "constexpr"])
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (array_declarator declarator: (identifier) @name)
      ])) @entity.constant)

(preproc_def
  name: (identifier) @name
  value: (preproc_arg)) @entity.constant

(preproc_function_def
  name: (identifier) @name) @entity.macro

(preproc_include) @import
(using_declaration) @import
(namespace_alias_definition) @import
