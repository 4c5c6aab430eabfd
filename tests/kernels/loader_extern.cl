// Loader tests: variables the application defines (hsa_executable_*_variable_define).
// Undefined default-visibility symbols reach the loader as R_AMDGPU_ABS64 relocations.
extern global int app_value __attribute__((visibility("default")));
extern constant int app_table[4] __attribute__((visibility("default")));

kernel void read_app_variables(global int *out) {
    out[get_global_id(0)] = app_value + app_table[get_global_id(0) & 3];
    app_value = 3;
}
