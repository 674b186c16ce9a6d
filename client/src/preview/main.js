// The preview page (issue 5).

document.getElementById('app')?.append('preview');
