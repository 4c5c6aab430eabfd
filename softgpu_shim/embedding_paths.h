/* Where the embedded runtime finds its Python packages (embedding_paths.c). */
const char *sg_package_root(void);
int sg_add_package_paths(void);
void sg_host_signals_save(void);
void sg_host_signals_restore(void);
void sg_runtime_failed(const char *reason);
const char *sg_runtime_failure(void);
