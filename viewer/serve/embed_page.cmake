# Writes the page (IN) as a C++ string constant (OUT): kEstuaryServePage.
file(READ ${IN} page)
string(FIND "${page}" ")estuary_page\"" clash)
if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${IN} contains the raw string's delimiter )estuary_page\"")
endif()
file(WRITE ${OUT}.tmp "// Generated from ${IN} by embed_page.cmake: do not edit.\n"
     "extern const char* const kEstuaryServePage;\n"
     "const char* const kEstuaryServePage = R\"estuary_page(${page})estuary_page\";\n")
file(RENAME ${OUT}.tmp ${OUT})
