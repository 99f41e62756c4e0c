int infermark_matrix_placeholder = 0;
