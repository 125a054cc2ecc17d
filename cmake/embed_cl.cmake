# Writes OUT: a C file holding every kernel source file of CL_DIR and its folders (*.cl,
# *.clh, *.h) as a NUL-terminated char array named by its path under CL_DIR ("potrf.cl",
# "potrf/panel.cl"), and the table gala_cl_files[] that src/core/program.c reads.
# Run as: cmake -DOUT=... -DCL_DIR=... -P embed_cl.cmake
file(GLOB_RECURSE FILES RELATIVE ${CL_DIR} ${CL_DIR}/*.cl ${CL_DIR}/*.clh ${CL_DIR}/*.h)
list(SORT FILES)
set(body "/* Generated from cl/ by cmake/embed_cl.cmake. Do not edit. */\n")
string(APPEND body "typedef struct { const char *name; const char *text; } gala_cl_file;\n")
set(table "")
set(i 0)
foreach(name IN LISTS FILES)
  file(READ "${CL_DIR}/${name}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "static const char cl_${i}[] = {${hex}0x00};\n")
  string(APPEND table "    {\"${name}\", cl_${i}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "const gala_cl_file gala_cl_files[] = {\n${table}    {0, 0}};\n")
string(APPEND body "const int gala_cl_file_count = ${i};\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
