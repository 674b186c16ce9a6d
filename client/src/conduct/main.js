// The conduct page (issue 5).

document.getElementById('app')?.append('conduct');
